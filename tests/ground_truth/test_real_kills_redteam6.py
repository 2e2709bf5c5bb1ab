"""Real kills for the round-6 red-team cases (tests/adversarial/attacks/rt6_*.py) that strace can reach:
those whose every file-system call is made by the main thread of the main process while run_agent runs
(strace's when= counts per thread and per process, and run_real.py stops at the return). For each, the
states real SIGKILLs leave must be the replay's, and the verdict a resume would reach on those real
states must be the grader's, for the two criteria a kill decides (the rules: red_team_kills.py).

The other rt6 cases are labelled by reasoning (their headers; tests/adversarial/test_adv_redteam6.py).
A case misjudged later is a strict xfail here, with the reason as its value in CASES."""

from __future__ import annotations

import pytest

from red_team_kills import check_case

# Case -> why the grader disagrees with the real kills today ("" when it agrees).
CASES = {
    "rt6_bad_save_response_before_pending": "",
    "rt6_bad_pending_cleared_before_tool": "",
    "rt6_bad_mirror_drops_pending": "",
    "rt6_bad_map_private_never_reaches_file": "",
    "rt6_ok_mmap_downgrade_then_publish": "",
    "rt6_ok_mmap_resize_fill": "",
    "rt6_ok_map_private_scratch": "",
    "rt6_ok_mmap_replaced_by_fixed_anon": "",
    "rt6_ok_tokens_saved_on_reply": "",
}
# Left to reasoning: rt6_bad_mremap_upgrade_in_place rewrites the checkpoint through a mapping, and mapping
# stores are no syscalls: strace kills only before its ftruncate or after its stores, never between them.


def _params():
    for name, why in CASES.items():
        marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_params()))
def test_real_kills_label_the_case_as_the_grader_does(name, tmp_path):
    check_case(name, "test_adv_redteam6", tmp_path)
