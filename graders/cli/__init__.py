"""The command line: grading submissions on an instructor's machine (sandbox: one per worker).

Until graders/cli.py moves into this package, the package re-exports it (a package shadows a
module of the same name, and `python -m graders` imports `graders.cli.main`).
"""

import importlib.util as _util
import os as _os
import sys as _sys

_LEGACY = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))), "cli.py")
if _os.path.exists(_LEGACY):
    _spec = _util.spec_from_file_location("graders._cli_legacy", _LEGACY)
    _module = _util.module_from_spec(_spec)
    _sys.modules["graders._cli_legacy"] = _module
    _spec.loader.exec_module(_module)
    globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
