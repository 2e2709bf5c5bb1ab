"""Check a `--format json` report against the schema the repository ships (graders/cli/report.schema.json)."""

from __future__ import annotations

import json

import jsonschema

from conftest import ROOT

SCHEMA = json.loads((ROOT / "graders" / "cli" / "report.schema.json").read_text(encoding="utf-8"))
jsonschema.Draft202012Validator.check_schema(SCHEMA)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def check(doc: dict) -> dict:
    """`doc`, after asserting it matches the schema (every error listed, with where it is)."""
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(doc)]
    assert errors == [], errors[:10]
    return doc
