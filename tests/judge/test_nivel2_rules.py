"""The nivel-2 judge's rules, one by one, on hand-built traces (no student code runs here)."""

from __future__ import annotations

from graders.judge.nivel2 import Nivel2Judge

from .tracebuilder import Builder, run_agent


def verdict(builder: Builder, **trace_kwargs):
    judge = Nivel2Judge(builder.trace(**trace_kwargs))
    return {c: r for c, r in judge.grade().items()}, judge


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
    assert "pasta" in hints


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
        b.save_atomic(s, fsync=True, dirsync=True, tmp="decoy.tmp")
        b.rename("decoy.tmp", "decoy.json") if False else None
        b.save_in_place(s)  # the judged file itself, in place
    results, _ = verdict(run_agent(save=save_wrong))
    assert not results["escrita-atomica"].passed


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
    results = Nivel2Judge(trace).grade()
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
    results, judge = verdict(run_agent(save=lambda b, s: b.save_in_place(s)))
    message = results["escrita-atomica"].message
    assert message.startswith("Queda ")
    n = int(message.split()[1])
    assert judge.points[n - 1].n == n and f"de {judge.total}" in message
