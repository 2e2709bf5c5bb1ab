"""The nivel-2 judge's rules, one by one, on hand-built traces (no student code runs here)."""

from __future__ import annotations

import copy

from graders.judge.nivel2 import Nivel2Judge, judge

from .tracebuilder import Builder, run_agent


def verdict(builder: Builder, **trace_kwargs):
    return judge(builder.trace(**trace_kwargs))


def passed(results):
    return {c: r.passed for c, r in results.items()}


ALL = {"escrita-atomica": True, "ponto-a": True, "seis-campos": True, "executavel": True}


def test_reference_loop_passes_everything_without_advice():
    results, _ = verdict(run_agent())
    assert passed(results) == ALL
    assert not any(r.hint for r in results.values())


def test_in_place_write_fails_atomicity_at_the_truncation():
    results, judge = verdict(run_agent(save=lambda b, s: b.save_in_place(s)))
    assert not results["escrita-atomica"].passed
    assert "vazio" in results["escrita-atomica"].message or "JSON completo" in results["escrita-atomica"].message
    assert results["executavel"].passed


def test_missing_point_a_fails_ponto_a():
    results, _ = verdict(run_agent(point_a=False))
    assert passed(results) == {**ALL, "ponto-a": False}
    assert "execute_tool" in results["ponto-a"].message


def test_point_b_saved_only_after_the_next_model_call_fails():
    results, _ = verdict(run_agent(b_after_model=True))
    assert not results["ponto-a"].passed
    assert "ponto B" in results["ponto-a"].message


def test_the_reply_saved_before_point_a_without_the_call_fails_ponto_a():
    results, _ = verdict(run_agent(early="reply"))
    assert passed(results) == {**ALL, "ponto-a": False}
    assert "entre a resposta do modelo que pede" in results["ponto-a"].message
    assert "pendingToolUse = null" in results["ponto-a"].message


def test_a_save_before_the_reply_joins_messages_is_no_lost_call():
    results, _ = verdict(run_agent(early="tokens"))
    assert passed(results) == ALL


def test_an_older_state_written_again_after_point_b_fails_ponto_a():
    """A copy of point A of the first turn, saved again once the task is over (a stale helper): a
    resume would run that tool again, though its result had been on disk."""
    seen = []

    def save(b, state):
        seen.append(copy.deepcopy(state))
        b.save_atomic(state, fsync=True, dirsync=True)

    b = run_agent(save=save)
    b.save_atomic(seen[0], fsync=True, dirsync=True)
    results, _ = verdict(b)
    assert passed(results) == {**ALL, "ponto-a": False}
    assert "voltou a um estado anterior" in results["ponto-a"].message


def test_the_last_state_saved_again_is_no_regression():
    seen = []

    def save(b, state):
        seen.append(copy.deepcopy(state))
        b.save_atomic(state, fsync=True, dirsync=True)

    b = run_agent(save=save)
    b.save_atomic(seen[-1], fsync=True, dirsync=True)
    results, _ = verdict(b)
    assert passed(results) == ALL


def test_tokens_assigned_instead_of_summed_fails_one_convention():
    results, _ = verdict(run_agent(tokens="="))
    assert not results["seis-campos"].passed
    assert "tokensUsed" in results["seis-campos"].message


def test_tokens_without_the_first_reply_is_a_convention_too():
    results, _ = verdict(run_agent(first_tokens=False))
    assert passed(results) == ALL


def test_no_fsync_gives_power_loss_advice_only():
    results, _ = verdict(run_agent(save=lambda b, s: b.save_atomic(s)))
    assert passed(results) == ALL
    hints = " ".join(r.hint for r in results.values())
    assert "os.fsync" in hints and "falta de energia" in hints


def test_file_fsync_without_directory_fsync_advises_the_directory():
    results, _ = verdict(run_agent(save=lambda b, s: b.save_atomic(s, fsync=True)))
    assert passed(results) == ALL
    hints = " ".join(r.hint for r in results.values())
    assert "os.fsync no diretório" in hints and "pasta" not in hints
    # The code saved point A; only a power loss could lose it: never ask for a save already there.
    assert "O código gravou o ponto A" in results["ponto-a"].hint
    assert "Grave o ponto A" not in hints


def test_a_folders_fsync_is_named_as_the_folder():
    from graders.judge.points import CrashPoints
    from graders.trace.ops import Event

    from .tracebuilder import WORK

    b = run_agent(save=lambda b, s: b.save_atomic(s, fsync=True, dirsync=True))
    b.mkdir(WORK + "/checkpoints")
    # A folder opened with os.open has no path in the kernel's trace: only its node.
    b.events += [Event("fsync", node=b.dirs[WORK]), Event("fsync", node=b.dirs[WORK + "/checkpoints"])]
    points = CrashPoints(b.trace(), [], 3, "checkpoint.json")
    assert points.what(b.events[-2]) == "do os.fsync do diretório do projeto"
    assert points.what(b.events[-1]) == "do os.fsync do diretório checkpoints"
    assert "?" not in points.what(Event("write", node=999, data=b"x"))


def test_power_loss_can_be_graded():
    judge = Nivel2Judge(run_agent(save=lambda b, s: b.save_atomic(s)).trace(), power_graded=True)
    results = judge.grade()
    assert not all(r.passed for r in results.values())


def test_a_decoy_file_is_not_judged_the_checkpoint_is():
    def save(b, s):
        b.save_atomic(s, fsync=True, dirsync=True, tmp="estado.tmp")  # checkpoint.json, atomically
        b.save_in_place(s, path="estado.json")  # a decoy written in place: not the judged file
    results, _ = verdict(run_agent(save=save))
    assert passed(results) == ALL

    def save_wrong(b, s):
        node = b.open("decoy.tmp")  # a perfect atomic save of another file cannot stand in for it
        b.write(node, b"{}")
        b.rename("decoy.tmp", "decoy.json")
        b.save_in_place(s)  # the judged file itself, in place
    results, _ = verdict(run_agent(save=save_wrong))
    assert not results["escrita-atomica"].passed


def test_the_lessons_checkpoints_folder_is_judged_too():
    def save(b, s):
        if "/home/aluno/projeto/checkpoints" not in b.dirs:
            b.mkdir("checkpoints")
        b.save_in_place(s, path="checkpoints/checkpoint.json")
    results, primary = verdict(run_agent(save=save))
    assert not results["escrita-atomica"].passed and primary.shown == "checkpoints/checkpoint.json"

    def both(b, s):
        b.save_atomic(s, fsync=True, dirsync=True)
        save(b, s)  # a second named file, written in place: judged as well
    results, _ = verdict(run_agent(save=both))
    assert not results["escrita-atomica"].passed
    assert "checkpoints/checkpoint.json" in results["escrita-atomica"].message


def test_ending_the_process_instead_of_returning_fails_executavel():
    results, _ = verdict(run_agent(), report={})  # status 0, but run_agent never said it returned
    assert not results["executavel"].passed and "os._exit" in results["executavel"].message
    assert results["escrita-atomica"].passed


def test_unclean_end_fails_executavel_even_after_the_final_reply():
    b = run_agent()
    results, _ = verdict(b, end="exit", code=1)
    assert not results["executavel"].passed
    assert results["escrita-atomica"].passed  # the whole loop was observed: the disk is still judged


def test_a_run_that_never_reached_the_final_reply_cannot_be_judged():
    b = run_agent()
    b.events = [e for e in b.events if not (e.kind == "model" and e.call == 3)]
    results, _ = verdict(b, end="timeout")
    assert not any(r.passed for r in results.values())


def test_final_folder_must_match_the_model():
    b = run_agent()
    trace = b.trace()
    trace.final = dict(trace.final)
    trace.final["/home/aluno/projeto/checkpoint.json"] = b"{}"
    results, _ = judge(trace)
    assert not results["escrita-atomica"].passed
    assert "não acompanha" in results["escrita-atomica"].message


def test_removing_the_checkpoint_after_the_final_reply_is_allowed():
    b = run_agent()
    b.unlink("checkpoint.json")
    results, _ = verdict(b)
    assert results["escrita-atomica"].passed


def test_removing_it_before_the_rename_fails():
    def save(b, s):
        node = b.open("checkpoint.json.tmp")
        import json as _json
        b.write(node, _json.dumps(s).encode())
        b.fsync(node)
        if "/home/aluno/projeto/checkpoint.json" in b.entries:
            b.unlink("checkpoint.json")
        b.rename("checkpoint.json.tmp", "checkpoint.json")
        b.fsync_dir()
    results, _ = verdict(run_agent(save=save))
    assert not results["escrita-atomica"].passed
    assert "sumiu" in results["escrita-atomica"].message


def test_crash_numbering_is_shared_by_messages():
    results, primary = verdict(run_agent(save=lambda b, s: b.save_in_place(s)))
    message = results["escrita-atomica"].message
    assert message.startswith("Queda ")
    n = int(message.split()[1])
    assert primary.points[n - 1].n == n and f"de {primary.total}" in message


def test_a_long_run_lists_a_bounded_timeline_with_the_real_total():
    from graders.judge import timeline

    def chatty(b, s):
        import json as _json
        node = b.open("checkpoint.json")  # in place, line by line: hundreds of crash states
        for line in _json.dumps(s, indent=2).encode().splitlines(keepends=True):
            b.write(node, line)
    results, primary = verdict(run_agent(save=chatty))
    shown = timeline.describe(primary)
    assert primary.total > timeline.MAX_POINTS
    assert shown["total"] == primary.total and len(shown["points"]) <= timeline.MAX_POINTS + 16
    n = int(results["escrita-atomica"].message.split()[1])
    assert n in {p["n"] for p in shown["points"]}  # the failure the message cites is listed


def test_the_timeline_expects_the_checkpoint_a_state_has_just_saved():
    from graders.judge import timeline

    _, primary = verdict(run_agent())
    points = timeline.describe(primary)["points"]
    first_save = next(p for p in points if p["kind"] == "rename")
    assert first_save["expected"].startswith("Um checkpoint completo já gravado"), first_save["expected"]
    assert points[0]["expected"].startswith("Nada ainda")


def test_what_stopped_the_run_outranks_the_runners_account_of_the_load():
    # Module-level prints past the limit: the runner reports the grader's own exception at load.
    b = Builder()
    results, _ = verdict(b, end="flood", report={"kind": "exception", "phase": "load", "exc_type": "OutputFlood",
                                                 "frames": [[3, "<module>", "print('y' * 100)"]]})
    for result in results.values():
        assert not result.passed
        assert "saída demais" in result.message and "OutputFlood" not in result.message, result.message


def test_a_time_out_after_run_agent_returned_says_what_kept_it_alive():
    """The runner's end report came (run_agent returned) but the process did not end: a non-daemon thread
    or a child kept it alive. Still a failure; the words say what happened, not "laço infinito"."""
    results, _ = verdict(run_agent(), end="timeout", report={"kind": "ok", "phase": "call"})
    message = results["executavel"].message
    assert not results["executavel"].passed
    assert message.startswith("run_agent voltou, mas a execução não terminou"), message
    assert "thread que não é daemon" in message and "laço infinito" not in message


def test_a_signal_is_named_with_what_it_usually_means():
    results, _ = verdict(run_agent(), end="signal", code=2)
    message = results["executavel"].message
    assert not results["executavel"].passed
    assert "sinal 2, SIGINT" in message and "KeyboardInterrupt" in message, message
    results, _ = verdict(run_agent(), end="signal", code=64)
    assert results["executavel"].message.endswith("pelo sinal 64.")


def test_ending_the_process_before_any_model_call_says_so():
    results, _ = verdict(Builder(), report={})  # os._exit at import: nothing ran
    message = results["executavel"].message
    assert not results["executavel"].passed
    assert "antes mesmo da primeira chamada ao modelo" in message and "os._exit" in message, message
