"""One renderer module per output format; each only reads the class report (graders.cli.classreport)
and returns the whole output as text. No renderer imports another."""

from __future__ import annotations

import importlib

# --format value → module of this package; each has `render(report) -> str`.
MODULES = {"text": "text", "json": "json_doc", "csv": "csv_table", "planilha": "planilha", "html": "html",
           "moodle": "moodle", "moodle-tarefa": "moodle_tarefa", "vpl": "vpl"}


def render(fmt: str, report: dict) -> str:
    return importlib.import_module(f"{__name__}.{MODULES[fmt]}").render(report)
