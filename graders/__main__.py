"""Command-line entry point: `python -m graders EXERCISE FILE...` (see graders.cli)."""
import sys

from .cli import main

sys.exit(main())
