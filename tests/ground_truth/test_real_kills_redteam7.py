"""Real kills for the round-7 red-team cases (tests/adversarial/attacks/rt7_*.py) that strace can reach:
those whose every file-system call is made by the main thread of the main process while run_agent runs
(strace's when= counts per thread and per process, and run_real.py stops at the return). For each, the
states real SIGKILLs leave must be the replay's, and the verdict a resume would reach on those real
states must be the grader's, for the two criteria a kill decides (the rules: red_team_kills.py).

The other rt7 cases are labelled by reasoning (their headers; tests/adversarial/test_adv_redteam7.py).
A case misjudged later is a strict xfail here, with the reason as its value in CASES."""

from __future__ import annotations

import pytest

from red_team_kills import check_case

# Case -> why the grader disagrees with the real kills today ("" when it agrees).
CASES = {
    "rt7_bad_early_stale_pending": "",
    "rt7_bad_publish_latest_wrong": "",
    "rt7_ok_both_files_mirrored": "",
    "rt7_ok_archive_after_final": "",
    "rt7_ok_history_links": "",
    "rt7_ok_tmpfile_emptypath_linked": "",
}
# Left to reasoning: every other rt7 case writes from a forked child (a helper, a renamer, a mapping's
# owner) or stores through a mapping, which strace's per-thread kills cannot reach; the group cases
# write only as the reference solution does (their question is executavel, not a crash state).


def _params():
    for name, why in CASES.items():
        marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_params()))
def test_real_kills_label_the_case_as_the_grader_does(name, tmp_path):
    check_case(name, "test_adv_redteam7", tmp_path)
