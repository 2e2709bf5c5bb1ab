"""Guard for the private Pyodide API the page's Python relies on (python-worker.js): memory snapshots.

It runs the pinned Pyodide under Node (tests/pyodide_snapshot.mjs) and fails loudly when an upgrade
changes what the worker assumes (see ARCHITECTURE.md, "The page")."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graders import exercises  # noqa: E402
from sitebuild import finish  # noqa: E402

SNAPSHOT_MAGIC = 0x706E7300  # "\0snp", Pyodide's src/js/snapshot.ts


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    node = shutil.which("node")
    assert node, "Node.js is needed to run Pyodide (make test installs the npm deps)"
    folder = tmp_path_factory.mktemp("snapshot")
    bundle = folder / "lesson.zip"
    bundle.write_bytes(finish.bundle_bytes(ROOT))
    request = folder / "request.json"
    request.write_text(json.dumps({"action": "grade", "exercise": "nivel-2", "answers": None,
                                   "code": exercises.read_text("nivel-2", "solution.py")}))
    run = subprocess.run([node, str(ROOT / "tests" / "pyodide_snapshot.mjs"), str(bundle), str(request)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def pinned_build_id() -> str:
    text = (ROOT / "node_modules" / "pyodide" / "pyodide.mjs").read_text(encoding="utf-8")
    found = re.findall(r'BUILD_ID:"([0-9a-f]{64})"', text)
    assert len(found) == 1, "pyodide.mjs no longer carries one BUILD_ID literal"
    return found[0]


def test_the_pinned_pyodide_is_the_one_checked(facts):
    assert facts["version"] == finish.pinned_pyodide(ROOT)


def test_a_snapshot_is_made_only_with_the_option_and_before_any_js_module(facts):
    snapshot = facts["snapshot"]
    assert snapshot["isUint8Array"]
    assert snapshot["magic"] == SNAPSHOT_MAGIC
    # The header names the build: the page's tests tamper with exactly these bytes.
    assert snapshot["buildId"] == pinned_build_id()
    # A snapshot is the whole wasm heap; much larger would mean the graders no longer fit the initial
    # heap (pyodide issue #6254: such a snapshot fails to restore).
    assert 8 * 2**20 < snapshot["bytes"] <= 64 * 2**20
    assert not facts["snapshotWithoutOption"]["ok"]
    assert "_makeSnapshot" in facts["snapshotWithoutOption"]["error"]
    assert not facts["snapshotAfterJsModule"]["ok"], "a JS module no longer stops a snapshot: revisit the worker's order"


def test_a_restore_keeps_python_but_not_the_file_system_the_tap_or_the_seeds(facts):
    restore = facts["restore"]
    assert restore["modulesKept"] and restore["pathKept"]
    assert not restore["fileSystemKept"], "the file system is in the snapshot now: the worker unpacks it twice"
    assert not restore["tapKept"]
    # Every restore starts from the same random state and hash seed: the worker re-seeds random.
    assert restore["sameRandom"] and restore["sameHash"]
    assert restore["reseededDiffer"]


def test_restored_pythons_grade_like_the_one_that_made_the_snapshot(facts):
    for name in ("makerGrades", "restoredGrades", "secondGrades", "plainAfterRefusals"):
        assert facts[name]["ok"], facts[name]
        assert facts[name]["value"]["ok"], facts[name]
    verdicts = [facts[name]["value"]["verdict"] for name in ("makerGrades", "restoredGrades", "secondGrades",
                                                              "plainAfterRefusals")]
    assert verdicts[0]["exercise"] == "nivel-2" and verdicts[0]["criteria"]
    # The reference solution passes every code criterion (the questions are unanswered here).
    code = [c for c in verdicts[0]["criteria"] if not c["id"].startswith("diagnostico")]
    assert code and all(c["passed"] for c in code), code
    assert all(v == verdicts[0] for v in verdicts)


def test_a_snapshot_of_another_build_or_damaged_is_refused_and_a_plain_boot_follows(facts):
    assert not facts["otherBuild"]["ok"] and "build id mismatch" in facts["otherBuild"]["error"]
    assert not facts["badMagic"]["ok"] and "magic" in facts["badMagic"]["error"]
    assert facts["plainAfterRefusals"]["ok"]


def test_the_build_names_the_snapshot_as_the_worker_does(facts):
    # The service worker deletes a stored snapshot whose key is not the build's (docs/sw.js):
    # the build must read the same Pyodide version the worker imports.
    assert finish.vendored_pyodide_version(ROOT / "node_modules") == facts["version"]
