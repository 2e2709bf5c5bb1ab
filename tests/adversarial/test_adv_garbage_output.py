"""Class 7: a submission floods and poisons what the grader reads and reports.

attacks/garbage_output.py prints ~10 MB, control characters, invalid UTF-8, lone
surrogates, fake protocol lines and a fake text-report line claiming the sibling passed,
and raises an exception whose message is 5 MB of the same. attacks/garbage_checkpoint.py
leaves a 3 MB checkpoint.json full of invalid UTF-8 and control characters. A file whose
*name* holds a newline and an escape sequence rides along. The report, in every format,
must stay well-formed, one entry per file, and bounded.
"""

from __future__ import annotations

import csv
import io
import shutil

import pytest

from advkit import (
    MODES, SOLUTION, assert_forged_nothing, assert_sibling_passes, by_file, make_arena, mode_args, mode_id,
    report, run_cli, same_file,
)

CONTROL = ("\x1b", "\r", "\x00", "\x07", "\u202e", "\u2028", "\u2029", "\x85")


# Output handling does not depend on the sandbox: the default mode only, to keep it quick.
@pytest.fixture(scope="module", params=[None], ids=mode_id)
def garbage(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("garbage"))
    sibling = arena.sibling()
    weird = arena.subs / "nome\n\x1b[31mestranho.py"
    shutil.copyfile(SOLUTION, weird)
    files = [arena.render("garbage_output", sibling=sibling), arena.render("garbage_checkpoint", sibling=sibling),
             weird, sibling]
    runs = {fmt: run_cli(arena, files, *mode_args(request.param), fmt=fmt, timeout=240)
            for fmt in ("json", "text", "csv")}
    return arena, runs, files


def test_json_report_is_well_formed_and_bounded(garbage):
    arena, runs, files = garbage
    data = report(runs["json"], files)
    assert runs["json"].stdout_size < 2 * 1024 * 1024 * len(files)


def test_attacks_do_not_pass_and_siblings_do(garbage):
    arena, runs, files = garbage
    data = report(runs["json"], files)
    named = by_file(data)
    assert_forged_nothing(named["garbage_output.py"])
    assert_forged_nothing(named["garbage_checkpoint.py"])
    assert_sibling_passes(data, files[2])
    assert_sibling_passes(data, files[3])


def test_csv_has_one_row_per_file(garbage):
    arena, runs, files = garbage
    run = runs["csv"]
    # 3: the ~10 MB of output hit a grader limit (--max-saida), so that file is not graded.
    assert not run.timed_out and run.returncode == 3, run.describe()
    assert run.stdout_size < 2 * 1024 * 1024 * len(files)
    rows = list(csv.reader(io.StringIO(run.stdout.decode("utf-8"))))
    assert len(rows) == 1 + len(files), f"{len(rows)} rows"
    assert all(same_file(r[0], f) for r, f in zip(rows[1:], files)), [r[0] for r in rows[1:]]
    assert all(len(r) == len(rows[0]) for r in rows)


def test_text_report_has_one_header_per_file_and_no_control_characters(garbage):
    arena, runs, files = garbage
    run = runs["text"]
    # 3: the ~10 MB of output hit a grader limit (--max-saida), so that file is not graded.
    assert not run.timed_out and run.returncode == 3, run.describe()
    assert run.stdout_size < 2 * 1024 * 1024 * len(files)
    text = run.stdout.decode("utf-8")  # must be valid UTF-8
    found = sorted({repr(c) for c in CONTROL if c in text})
    assert found == [], f"raw control characters in the text report: {found}"
    files_part = text.split("\n\n", 1)[0]  # the class summary and the report's facts follow a blank line
    headers = [line for line in files_part.split("\n") if line and not line.startswith(" ")]
    assert len(headers) == len(files), f"{len(headers)} unindented lines, e.g. {headers[:6]}"
    sibling = str(files[3])
    assert sum(line.startswith(sibling + ":") for line in headers) == 1, "a forged header for the sibling"


def test_stderr_is_bounded(garbage):
    arena, runs, files = garbage
    for fmt, run in runs.items():
        assert len(run.stderr) < 1024 * 1024, f"{fmt}: stderr is {len(run.stderr)} bytes"
