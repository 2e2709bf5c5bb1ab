"""Command-line entry point: `python -m graders EXERCISE FILE...` (see graders.cli.main)."""
import sys

from .cli.main import main

sys.exit(main())
