"""Command-line entry point: `python -m graders EXERCISE FILE...` (see graders.cli.main)."""
import sys

if sys.argv[1:2] == ["autograder"]:  # `python -m graders autograder PLATAFORMA SAIDA/` (graders.autograder)
    from .autograder.command import main as autograder

    sys.exit(autograder(sys.argv[2:]))

from .cli.main import main

sys.exit(main())
