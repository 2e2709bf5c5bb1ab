"""The class-wide copy finder: what it groups, what it must never group, and hostile input."""

from __future__ import annotations

import io
import pathlib
import textwrap
import time
import tokenize

import pytest

from graders.similarity import IDENTICAL, NEAR, find_similar

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "nivel-2"
STARTER = (ROOT / "exercises" / "nivel-2" / "starter.py").read_text(encoding="utf-8")
SOLUTION = (ROOT / "exercises" / "nivel-2" / "solution.py").read_text(encoding="utf-8")


def corpus_class() -> dict:
    """Every corpus solution of nivel-2 as if each were a student's."""
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(CORPUS.glob("*.py"))}


def disguised(source: str) -> str:
    """What a student does to a copied file: other names, comments, a docstring, other layout."""
    names = {"state": "estado", "save_checkpoint": "salvar", "response": "resposta", "tmp": "temporario", "f": "arq"}
    renamed = tokenize.untokenize(
        (kind, names.get(text, text) if kind == tokenize.NAME else text)
        for kind, text, *_ in tokenize.generate_tokens(io.StringIO(source).readline)
    )
    lines = ["# Meu trabalho, feito sozinho", '"""Agente com checkpoints."""']
    for line in renamed.splitlines():
        lines.append(line)
        if line.strip().startswith("def "):
            lines.append('    """Faz a parte dela."""')
        if line.strip() and not line.lstrip().startswith("#"):
            lines.append("")
    return "\n".join(lines) + "\n"


def groups_with(groups, label):
    return [g for g in groups if label in g.members]


def test_a_renamed_reformatted_commented_copy_is_identical():
    codes = corpus_class()
    codes["copia"] = disguised(codes["ok_fsync_directory"])
    groups = find_similar(codes, starter=STARTER)
    (group,) = groups_with(groups, "copia")  # one group per file: groups never overlap
    if group.kind == IDENTICAL:
        assert set(group.members) == {"ok_fsync_directory", "copia"} and group.score == 1.0
    else:  # the pair sits in a near-identical group of the corpus, and is named identical in it
        assert ("ok_fsync_directory", "copia") in group.identical


def test_groups_never_overlap_and_near_is_never_100_percent():
    codes = corpus_class()
    codes["copia"] = disguised(codes["ok_fsync_directory"])
    codes["outra"] = disguised(codes["ok_path_replace"]).replace("def ", "def _x():\n    pass\n\n\ndef ", 1)
    groups = find_similar(codes, starter=STARTER)
    labels = [label for g in groups for label in g.members]
    assert len(labels) == len(set(labels)), groups
    assert all(g.score < 1.0 for g in groups if g.kind == NEAR) and any(g.kind == NEAR for g in groups)


def test_the_reference_solution_is_a_known_source():
    codes = {"ana": disguised(SOLUTION), "bia": corpus_class()["ok_path_replace"]}
    groups = find_similar(codes, starter=STARTER, reference=SOLUTION)
    (group,) = groups  # one student alone is flagged: her code is the published solution
    assert group.members == ("ana",) and group.reference and group.kind == IDENTICAL
    assert find_similar(codes, starter=STARTER) == []  # without the reference, nothing to compare with
    codes["caio"] = disguised(SOLUTION).replace("def ", "def _y():\n    return 1\n\n\ndef ", 1)
    (group,) = find_similar(codes, starter=STARTER, reference=SOLUTION)
    assert group.kind == NEAR and group.reference and set(group.members) == {"ana", "caio"}
    assert group.identical[0][1:] == ("ana",)  # ana's is the solution itself, caio's an edit of it


def test_a_copy_with_lines_added_and_a_name_changed_is_near_identical():
    codes = corpus_class()
    original = codes["ok_path_replace"]
    edited = original.replace("def run_agent(", "def _nada():\n    return None\n\n\ndef run_agent(", 1)
    edited = edited.replace("\n    return", "\n    print('fim')\n    return", 1)
    assert edited != original
    codes["copia"] = disguised(edited)
    groups = find_similar(codes, starter=STARTER)
    mine = groups_with(groups, "copia")
    assert mine, groups
    assert mine[0].kind == NEAR and "ok_path_replace" in mine[0].members
    assert 0.8 <= mine[0].score <= 1.0


def test_the_untouched_starter_and_code_with_too_little_of_its_own_are_never_copies():
    codes = {
        "ana": STARTER,
        "bia": disguised(STARTER),
        "caio": STARTER + "\n\n# nada ainda\n",
        "davi": STARTER.replace("indent=2", "indent=4"),
        "eva": STARTER.replace("indent=2", "indent=4"),
    }
    assert find_similar(codes, starter=STARTER) == []


def test_distinct_honest_solutions_are_not_grouped():
    # The reference solution and the corpus' honest variants share what the statement makes everyone
    # write; only files that really are one edit apart may be grouped.
    # Corpus cases written as the reference solution plus one change are one edit apart by design.
    derived = {"ok_link_to_dev_shm", "ok_saves_tokens_before_point_a"}
    codes = {name: code for name, code in corpus_class().items() if name.startswith("ok_") and name not in derived}
    codes["solucao"] = SOLUTION
    for group in find_similar(codes, starter=STARTER):
        assert "solucao" not in group.members
        assert group.kind == NEAR


def test_common_passages_of_a_big_class_are_not_evidence():
    # Twenty students write the same required loop, each with a save function of their own.
    loop = textwrap.dedent(
        """
        def run_agent(task, tools, call_model, execute_tool):
            state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
                     "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
            while True:
                response = call_model(tools=tools, messages=state["messages"])
                state["turns"] += 1
                state["messages"].append({"role": "assistant", "content": response["content"]})
                uses = [b for b in response["content"] if b.get("type") == "tool_use"]
                if not uses:
                    return state
                for use in uses:
                    state["pendingToolUse"] = use
                    save_checkpoint(state)
                    result = execute_tool(use["name"], use["input"])
                    state["messages"].append({"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": use["id"], "content": result}]})
                    state["pendingToolUse"] = None
                    save_checkpoint(state)
        """
    )
    savers = []
    for i in range(20):
        steps = [f"    x{j} = {i * 7 + j} * len(str(state))" for j in range(i % 5 + 3)]
        body = "\n".join(steps[: i % 3 + 2] + [f"    with open('f{i}.tmp', 'w') as f:", f"        f.write(str(x0 + {i}))"])
        savers.append(f"import os\n\n\ndef save_checkpoint(state):\n{body}\n    os.replace('f{i}.tmp', 'checkpoint.json')\n")
    codes = {f"aluno{i:02}": savers[i] + loop for i in range(20)}
    assert find_similar(codes, starter=STARTER) == []
    codes["copia"] = disguised(codes["aluno07"])
    groups = find_similar(codes, starter=STARTER)
    assert [set(g.members) for g in groups] == [{"aluno07", "copia"}]


@pytest.mark.parametrize(
    "hostile",
    [
        "def f(:\n",
        "(" * 300 + ")" * 300,
        "x = " + "-" * 50_000 + "1\n",
        "x = [" + "1, " * 200_000 + "]\n",
        "\x00import os\n",
        "\ud800 = 1\n",
        None,
        b"import os",
    ],
    ids=["syntax", "deep-parens", "deep-unary", "huge-list", "nul", "surrogate", "none", "bytes"],
)
def test_hostile_code_is_skipped_quickly_and_never_raises(hostile):
    codes = {"ruim": hostile, "outro": hostile, "ok": SOLUTION}
    started = time.monotonic()
    groups = find_similar(codes, starter=STARTER)
    assert time.monotonic() - started < 30  # a gross bound only: hangs, not speed, are the bug here
    assert all("ok" not in g.members for g in groups)


def test_groups_keep_the_callers_order_and_are_stable():
    codes = corpus_class()
    codes = {"z-copia": disguised(codes["ok_fsync_directory"]), **codes}
    first = find_similar(codes, starter=STARTER)
    assert first == find_similar(codes, starter=STARTER)
    group = groups_with(first, "z-copia")[0]
    assert group.members[0] == "z-copia"


def test_shapes_made_beforehand_are_the_ones_compared():
    """The CLI tokenises each file while the class runs (similarity.shape) and hands the shapes over:
    the same groups as tokenising at the end, and the shapes given are the ones used."""
    from graders.similarity import shape, starter_copies, syntax_tree

    codes = corpus_class()
    codes["copia"] = disguised(codes["ok_fsync_directory"])
    codes["inicial"] = STARTER
    shapes = {source: shape(syntax_tree(source)) for source in codes.values()}
    assert find_similar(codes, starter=STARTER, shapes=shapes) == find_similar(codes, starter=STARTER)
    assert starter_copies(codes, STARTER, shapes) == starter_copies(codes, STARTER) == ["inicial"]
    # A shape handed over wins over the source's own: the copy, given another file's shape, is that file.
    shapes[codes["copia"]] = shape(syntax_tree(codes["ok_class_based"]))
    (group,) = groups_with(find_similar(codes, starter=STARTER, shapes=shapes), "copia")
    assert "ok_class_based" in group.members and "ok_fsync_directory" not in group.members
    assert shape(syntax_tree("def f(:\n")) is None
