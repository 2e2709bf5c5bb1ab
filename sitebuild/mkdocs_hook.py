"""MkDocs' only hook: run the post-build step (sitebuild/finish.py) after every MkDocs build.

So `mkdocs build`, `mkdocs serve` and `mkdocs gh-deploy` give the complete site on their own.
Zensical ignores `hooks:`; the Makefile runs the same step after it (and, harmlessly, after
MkDocs too: the step is idempotent). Under `mkdocs serve` the service worker is off: pages
change at every save, and a cache would only get in the way.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.exceptions import PluginError

from sitebuild import finish as step

log = logging.getLogger("mkdocs.hooks.sitebuild")
_serving = False


def on_startup(command, dirty):
    global _serving
    _serving = command == "serve"


def on_post_build(config):
    site = Path(config.site_dir)
    on = not _serving and step.switched_on(config.extra.get("service_worker", True))
    try:
        done = step.finish(site, service_worker=on, root=Path(config.config_file_path).resolve().parent)
    except step.BuildError as exc:
        raise PluginError(str(exc)) from exc
    log.info(done.summary(site))
