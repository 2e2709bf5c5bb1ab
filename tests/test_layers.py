"""The graders are built in floors: a module imports only from its own floor or the floors below it
(ARCHITECTURE.md). The floor of every top-level module and package of graders/ is listed here."""

from __future__ import annotations

import ast
from pathlib import Path

GRADERS = Path(__file__).resolve().parent.parent / "graders"

# Lowest first. Each entry: the top-level modules and packages of graders/ on that floor.
FLOORS = [
    {"guard", "fake_agent", "exercises", "submission", "similarity", "arguments"},
    {"trace"},  # trace/kernel is the CLI's supervisor; trace/browser the page's tap
    {"replay", "sandbox"},
    {"judge"},
    {"grading"},
    {"demo", "playground"},
    {"web", "cli", "autograder"},  # autograder: the platforms' autograders, around the CLI
    {"__main__"},
]
FLOOR = {unit: level for level, units in enumerate(FLOORS) for unit in units}


def unit_of(dotted: str) -> str:
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "graders"


def imports(path: Path, root: Path) -> set[str]:
    """Every graders.* name this file imports, absolute and relative, top-level or inside functions."""
    rel = path.relative_to(root.parent).with_suffix("")
    module = ".".join(rel.parts)
    package = module.removesuffix(".__init__") if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if node.module:
                found.add(target)
            else:  # `from . import x`: x is the module imported
                found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name == "graders" or name.startswith("graders.")}


def top_level_units(root: Path) -> set[str]:
    return {p.stem if p.is_file() else p.name for p in root.iterdir()
            if (p.is_file() and p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()}


def upward_imports(root: Path) -> list[str]:
    upward = []
    for path in sorted(root.rglob("*.py")):
        source_unit = unit_of(".".join(path.relative_to(root.parent).with_suffix("").parts))
        if source_unit == "graders":  # graders/__init__.py
            continue
        for name in imports(path, root):
            target_unit = unit_of(name)
            if target_unit not in (source_unit, "graders") and FLOOR[target_unit] >= FLOOR[source_unit]:
                upward.append(f"{path.relative_to(root.parent)} imports {name}")
    return upward


def test_every_top_level_unit_has_a_floor():
    missing = sorted(top_level_units(GRADERS) - set(FLOOR))
    assert not missing, f"give these a floor in tests/test_layers.py and ARCHITECTURE.md: {missing}"


def test_no_import_runs_up_a_floor():
    assert upward_imports(GRADERS) == []


def test_the_checker_sees_an_upward_import_even_inside_a_function(tmp_path):
    """The arrow issue 43 removed (grading reaching up into the CLI for its sandbox) is caught."""
    root = tmp_path / "graders"
    (root / "cli").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "cli" / "__init__.py").write_text("")
    (root / "cli" / "sandbox.py").write_text("from ..grading import grade\n")
    (root / "grading.py").write_text("def run():\n    from .cli.sandbox import Sandbox\n")
    assert upward_imports(root) == ["graders/grading.py imports graders.cli.sandbox"]
