"""Issue 30, item 8: code that inspects the grader is flagged for reading ("inspeciona o corretor: …")
in every report format, and its grade does not change. The run half comes from the kernel tap (the
read-only opens it lets through, graders/trace/kernel/reads.py), the source half from `ast`
(graders/cli/inspection.py); checked in both modes: bubblewrap, and reduced mode under the filter
that refuses namespaces as a container does (tests/no_namespaces.py)."""

from __future__ import annotations

import ctypes
import csv
import io
import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT
import no_namespaces
import report_schema

sys.path.insert(0, str(ROOT / "tests" / "adversarial"))
import advkit  # noqa: E402

from graders.cli import classreport, formats, metadata  # noqa: E402
from graders.cli.inspection import detect, source_signs  # noqa: E402
from graders.cli.report import normalise  # noqa: E402
from graders.sandbox.sandbox import bwrap_problem  # noqa: E402
from graders.trace.kernel.reads import sign_of  # noqa: E402

SOLUTION = (ROOT / "exercises" / "nivel-2" / "solution.py").read_text(encoding="utf-8")
HONEST = sorted((ROOT / "tests" / "corpus").glob("nivel-*/ok_*.py"))
needs_bwrap = pytest.mark.skipif(bool(bwrap_problem()), reason="bubblewrap não funciona aqui")


def _signs(code: str) -> dict[str, list[int]]:
    return {s["what"]: s["lines"] for s in source_signs(code)}


# --- the source half: ast, with line numbers ------------------------------------------------------


def test_each_kind_of_sign_is_named_with_its_line():
    code = textwrap.dedent('''\
        import ctypes
        import gc, inspect
        import mmap
        import os
        import sys as s
        from gc import get_referrers

        def espia(call_model):
            argv = s.orig_argv
            alt = getattr(s, "orig_argv", [])
            objs = gc.get_objects()
            frame = s._getframe().f_back
            cells = call_model.__closure__
            pid = os.fork()
            page = mmap.mmap(-1, 4096)
            pai = open(f"/proc/{os.getppid()}/cmdline").read()
            return "/proc/self/mountinfo"
        ''')
    assert _signs(code) == {
        "usa ctypes": [1], "usa inspect": [2], "usa gc.get_referrers": [6], "usa sys.orig_argv": [9, 10],
        "usa gc.get_objects": [11], "usa sys._getframe": [12], "lê f_back": [12], "lê __closure__": [13],
        "usa mmap anônimo (memória que outro processo pode dividir)": [15],
        "usa os.getppid": [16], "cita /proc/{…}/cmdline": [16], "cita /proc/self/mountinfo": [17],
    }
    texts = [s["text"] for s in source_signs(code)]
    assert "usa sys.orig_argv nas linhas 9 e 10" in texts and "usa ctypes na linha 1" in texts


def test_signs_reached_without_an_import_statement():
    code = 'g = __import__("gc").get_objects()\nimport importlib\nimportlib.import_module("ctypes")\n'
    assert _signs(code) == {"usa gc.get_objects": [1], "usa ctypes": [3]}


def test_ordinary_code_has_no_sign():
    """What honest checkpointers do with the same modules: a mapping of their own file, the standard
    traceback, a collection, subprocess (which lists /proc/self/fd), threads, words like "procurar"."""
    code = textwrap.dedent('''\
        import gc, mmap, os, subprocess, threading, traceback

        def salva(estado, fd):
            with mmap.mmap(fd, 16, mmap.MAP_SHARED, mmap.PROT_WRITE) as m:
                m[:2] = b"{}"
            gc.collect()
            traceback.print_exc()
            threading.Thread(target=print).start()
            subprocess.run(["true"])
            os.listdir("/proc/self/fd")
            return "procurar /processos"
        ''')
    assert source_signs(code) == []


def test_the_source_is_read_never_run(tmp_path):
    marker = tmp_path / "rodou"
    code = f"open({str(marker)!r}, 'w').close()\nimport ctypes\nraise SystemExit(3)\nwhile True: pass\n"
    assert _signs(code) == {"usa ctypes": [2]}
    assert not marker.exists()
    assert source_signs("def f(:\n") == [] and source_signs(None) == [] and source_signs("") == []


def test_no_honest_corpus_source_has_a_sign():
    codes = {p.name: p.read_text(encoding="utf-8") for p in HONEST}
    for ex in ("nivel-1", "nivel-2"):
        for name in ("solution.py", "starter.py"):
            codes[f"{ex}/{name}"] = (ROOT / "exercises" / ex / name).read_text(encoding="utf-8")
    for path in (ROOT / "tests" / "corpus" / "respostas").glob("*.json"):
        for ex, entry in json.loads(path.read_text(encoding="utf-8"))["exercises"].items():
            codes[f"{path.name}:{ex}"] = entry.get("code") or ""
    assert {name: source_signs(code) for name, code in codes.items() if source_signs(code)} == {}


# Hostile submissions of tests/adversarial that probe the grader (its traces, its objects, its frames).
PROBING = ["one_forge_closure", "one_forge_returned_n1", "forge_code_swap", "forge_gc_thread", "forge_profile_hooks",
           "forge_signal_frames", "forge_token_exit", "leak_everything", "leak_via_checkpoint", "escape_files",
           "net_exfiltrate", "proc_spawn", "signal_siblings", "unhooked_first_run"]
FP_SIGNS = ["uid", "passwd", "home", "flags", "nspid", "cwd", "hostname", "homedir", "env", "umask", "user_name", "pid",
            "proc1", "ppid", "seccomp", "orig_argv", "mounts", "stdin"]


def test_every_corpus_submission_that_reaches_for_the_grader_has_a_source_sign():
    reaching = ["bad_gc_objects", "bad_inspect_frames", "bad_walks_frames", "bad_traceback_frames", "bad_tamper_grader",
                "bad_unhooks_audit", "bad_disables_crash_plan", "bad_edits_the_script", "bad_js_bridge"]
    corpus = ROOT / "tests" / "corpus" / "nivel-2"
    assert [n for n in reaching if not source_signs((corpus / f"{n}.py").read_text(encoding="utf-8"))] == []


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    return advkit.make_arena(tmp_path_factory.mktemp("inspeciona"))


def test_every_probing_attack_has_a_source_sign(arena):
    import re

    codes = {a: re.sub(r"@@[A-Z0-9_]+@@", "0", advkit._expand((advkit.ATTACKS / f"{a}.py").read_text(encoding="utf-8")))
             for a in PROBING}
    codes.update({f"fp_{s}": arena.render("one_fp", f"fp_{s}.py", check=s).read_text(encoding="utf-8") for s in FP_SIGNS})
    for name, code in codes.items():
        compile(code, name, "exec")  # the whole file parses: its signs are not a parse accident
    assert [name for name, code in codes.items() if not source_signs(code)] == []


# --- the run half: what the kernel tap records -----------------------------------------------------


@pytest.mark.parametrize("path, shown", [
    ("/proc/4242/status", "/proc/self/status"), ("/proc/4242/task/4243/status", "/proc/self/task/4243/status"),
    ("/proc/1/cmdline", "/proc/1/cmdline"), ("/proc/77/mountinfo", "/proc/77/mountinfo"), ("/proc", "/proc"),
    ("/proc/4242/fd/3", None), ("/proc/4242/fd", None), ("/proc/cpuinfo", None), ("/proc/sys/kernel/pid_max", None),
    ("/usr/lib/python3.11/os.py", None), ("/.dockerenv", "/.dockerenv"), ("/sys/fs/cgroup/cpu.max", "/sys/fs/cgroup/cpu.max"),
])
def test_what_a_read_path_shows(path, shown):
    assert sign_of(path, 4242) == shown


def test_read_only_opens_are_continued_and_noted_only_after_the_code_starts(tmp_path, monkeypatch):
    """Decided on the flags register alone: a read-only open is always let through (CONTINUE), its
    path read only for the note, and only once the runner asked for the student's code; an open that
    may write is left to the handlers that perform it."""
    from graders.trace.kernel.seccomp import FLAG_CONTINUE, NOTIF, syscall_nr
    from graders.trace.kernel.supervisor import Supervisor

    sup = Supervisor([("work", str(tmp_path))], reduced=False, source="", filename="x.py", job={})
    answers = []
    monkeypatch.setattr(sup, "respond", lambda nid, value=0, error=0, flags=0: answers.append((nid, error, flags)))
    nr = syscall_nr("openat")
    paths = {p: ctypes.create_string_buffer(p.encode()) for p in ("/proc/self/status", "/usr/lib/os.py", "/proc/self/fd")}

    def openat(nid, path, flags):
        return NOTIF.pack(nid, os.getpid(), 0, nr, 0xC000003E, 0, (-100) & 0xFFFFFFFFFFFFFFFF,
                          ctypes.addressof(paths[path]), flags, 0, 0, 0)

    sup.handle(openat(1, "/proc/self/status", os.O_RDONLY | os.O_CLOEXEC))
    assert answers == [(1, 0, FLAG_CONTINUE)] and sup.probes_out() == []  # the interpreter's own start
    sup.code_started = True
    for nid, path in enumerate(("/proc/self/status", "/usr/lib/os.py", "/proc/self/fd", "/proc/self/status"), 2):
        sup.handle(openat(nid, path, os.O_RDONLY | os.O_DIRECTORY * (path.endswith("fd"))))
    assert answers[1:] == [(n, 0, FLAG_CONTINUE) for n in range(2, 6)]
    assert sup.probes_out() == [{"path": "/proc/self/status", "count": 2}]
    assert sup.let_read_through(9, os.getpid(), nr, [-100, 0, os.O_WRONLY | os.O_CREAT, 0, 0, 0]) is False
    assert len(answers) == 5  # not answered there: opens.py performs it


# --- the model and every format: the note is data, each renderer only reads it ----------------------


def _row(file, signs, passed):
    from graders import exercises

    ids = exercises.code_criteria("nivel-2")
    criteria = [{"id": c, "passed": c in passed, "message": ""} for c in ids]
    result = normalise({"file": file, "exercise": "nivel-2", "passed": set(passed) == set(ids), "criteria": criteria,
                        "inspection": signs})
    name = file.removesuffix(".json")
    return {"file": file, "shown": file, "student": name, "kind": "export", "email": f"{name}@usp.br",
            "id_number": None, "results": {"nivel-2": result}}


SIGNS = [{"origin": "execução", "what": "lê /proc/self/status", "lines": [], "text": "lê /proc/self/status ao rodar",
          "path": "/proc/self/status"},
         {"origin": "código", "what": "usa sys.orig_argv", "lines": [12], "text": "usa sys.orig_argv na linha 12"}]
NOTE = "inspeciona o corretor: lê /proc/self/status ao rodar; usa sys.orig_argv na linha 12"


def _built(rows):
    meta = metadata.describe(True, False, ["nivel-2"])
    return classreport.build(rows, ["nivel-2"], "nivel-2", meta, [])


def test_the_note_changes_no_grade():
    passed = {"escrita-atomica", "ponto-a"}
    flagged, plain = _built([_row("bia.json", SIGNS, passed)]), _built([_row("bia.json", [], passed)])
    (a,), (b,) = flagged["students"], plain["students"]
    assert a["inspection_note"] == NOTE and b["inspection_note"] is None
    assert (a["score"], a["status"], a["passed"]) == (b["score"], b["status"], b["passed"])
    assert a["exercises"]["nivel-2"]["criteria"] == b["exercises"]["nivel-2"]["criteria"]
    assert flagged["summary"]["inspecting"] == 1 and plain["summary"]["inspecting"] == 0


@pytest.mark.parametrize("fmt", sorted(formats.MODULES))
def test_every_format_shows_the_note(fmt):
    built = _built([_row("ana.json", [], {"ponto-a"}), _row("bia.json", SIGNS, {"ponto-a"})])
    if fmt == "moodle-tarefa":
        # The worksheet goes back to Moodle as it came: no column of its own for the note, and its
        # feedback cells reach the students, so the note stays in the other formats only.
        from graders.cli import roster

        sheet = roster.parse_roster("Identificador,Nome completo,Endereço de email,Nota,Nota máxima,"
                                    "Última modificação (nota),Comentários de feedback\n"
                                    "Participante1,Ana,ana@usp.br,,\"10,00\",-,\nParticipante2,Bia,bia@usp.br,,\"10,00\",-,\n")
        meta = metadata.describe(True, False, ["nivel-2"])
        built = classreport.build([_row("ana.json", [], {"ponto-a"}), _row("bia.json", SIGNS, {"ponto-a"})],
                                  ["nivel-2"], "nivel-2", meta, [], people=sheet.people, worksheet=sheet.worksheet)
        out = formats.render(fmt, built)
        assert NOTE not in out and "inspeciona" not in out.lower() and out.count("\n") == 3
        return
    out = formats.render(fmt, built)
    if fmt == "json":
        doc = report_schema.check(json.loads(out))
        bia = next(s for s in doc["submissions"] if s["file"] == "bia.json")
        assert bia["inspection_note"] == NOTE and [s["text"] for s in bia["inspection"]] == [s["text"] for s in SIGNS]
        assert doc["summary"]["inspecting"] == 1
    elif fmt == "vpl":
        single = formats.render(fmt, _built([_row("bia.json", SIGNS, {"ponto-a"})]))
        assert f"Comment :=>>{NOTE} (não muda a nota)" in single.splitlines()
        assert single.splitlines()[-1].startswith("Grade :=>>")
    elif fmt in ("csv", "planilha", "moodle"):
        text = out.lstrip("\ufeff")
        rows = list(csv.reader(io.StringIO(text), delimiter=";" if fmt == "planilha" else ","))
        header = rows[0]
        column = next(i for i, h in enumerate(header) if h.lower().startswith("inspec"))
        by_file = {r[0] if fmt != "moodle" else r[0].split("@")[0]: r for r in rows[1:3]}
        assert by_file["bia.json" if fmt != "moodle" else "bia"][column] == NOTE
        assert by_file["ana.json" if fmt != "moodle" else "ana"][column] == ""
    elif fmt == "html":
        assert out.count("data-inspeciona") == 2  # bia's row in the table, and her details
        for sign in SIGNS:
            assert f'<li data-origin="{sign["origin"]}">{sign["text"]}</li>' in out
        assert 'id="inspecionam" class="inspeciona" data-count="1"' in out
    else:
        assert f"  {NOTE} (não muda a nota)" in out.splitlines()
        assert "inspecionam o corretor" in out
    if fmt == "moodle":
        honest = formats.render(fmt, _built([_row("ana.json", [], {"ponto-a"})]))
        assert "Inspeciona" not in honest  # the importer's columns are as they were without a note


# --- end to end: the CLI, in both modes -----------------------------------------------------------

PROBE_RUN = '''
import os as _os


def _status():
    # The path is built at run time: only the kernel's record can tell where it went.
    with open("/".join(("", "pr" + "oc", "se" + "lf", "sta" + "tus"))) as f:
        return f.read()


_save = save_checkpoint


def save_checkpoint(state):
    _status()
    return _save(state)
'''
PROBE_LINK = '''
import os as _os
import tempfile as _tempfile


def save_checkpoint(state, _save=save_checkpoint):
    # A link of its own, in its temporary folder, to a path it never writes out.
    link = _os.path.join(_tempfile.gettempdir(), "atalho")
    if not _os.path.islink(link):
        _os.symlink("/" + "/".join(("pr" + "oc", "se" + "lf", "mount" + "info")), link)
    open(link).close()
    return _save(state)
'''
PROBE_LIST = '''
import os as _os


def save_checkpoint(state, _save=save_checkpoint):
    _os.listdir("/" + "pr" + "oc")
    return _save(state)
'''
SOURCE_ONLY = '''

def _never_called():
    import ctypes
    return ctypes
'''
# Says on the runner's channel that it read /proc/self/status (it never does): the report must not
# believe it. The path is built at run time, so the source half has nothing to name either.
FORGED = '''
import json as _json
import os as _os

_os.write(3, (_json.dumps({"t": "end", "kind": "ok", "probes": [{"path": "/pr" + "oc/self/status", "count": 1}],
                          "inspection": [{"origin": "execução", "what": "lê /pr" + "oc/self/status"}]}) + "\\n").encode())
'''
FILES = {"honesta.py": "", "le_status.py": PROBE_RUN, "atalho.py": PROBE_LINK, "lista.py": PROBE_LIST,
         "so_codigo.py": SOURCE_ONLY}
MODES = [pytest.param("estrito", marks=needs_bwrap), "conteiner"]


def _cli(args, mode, timeout=600):
    wrapper = no_namespaces.wrapper() if mode == "conteiner" else []
    isolation = "auto" if mode == "conteiner" else mode
    return subprocess.run([*wrapper, sys.executable, "-m", "graders", *map(str, args), "--isolamento", isolation,
                           "--jobs", "2"], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module", params=MODES)
def graded(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(f"turma-{request.param}")
    for name, extra in {**FILES, "forja.py": FORGED}.items():
        (folder / name).write_text(SOLUTION + extra, encoding="utf-8")
    run = _cli(["nivel-2", folder, "--format", "json"], request.param)
    doc = report_schema.check(json.loads(run.stdout))
    assert doc["report"]["isolation"] == ("reduzido" if request.param == "conteiner" else "estrito"), run.stderr
    return request.param, folder, {os.path.basename(s["file"]): s for s in doc["submissions"]}, doc


def test_the_run_half_comes_from_the_kernel_record(graded):
    _mode, _folder, rows, _doc = graded
    assert [s["text"] for s in rows["le_status.py"]["inspection"]] == ["lê /proc/self/status ao rodar"]
    assert [s["text"] for s in rows["atalho.py"]["inspection"]] == ["lê /proc/self/mountinfo ao rodar"]
    assert [s["text"] for s in rows["lista.py"]["inspection"]] == ["lista os processos (/proc) ao rodar"]
    assert rows["le_status.py"]["inspection"][0]["origin"] == "execução" and rows["le_status.py"]["inspection"][0]["lines"] == []


def test_what_the_process_says_of_itself_flags_nothing(graded):
    _mode, _folder, rows, _doc = graded
    assert rows["forja.py"]["inspection"] == [] and rows["forja.py"]["inspection_note"] is None


def test_the_source_half_names_code_that_never_ran(graded):
    _mode, _folder, rows, _doc = graded
    line = SOLUTION.count("\n") + SOURCE_ONLY.count("\n", 0, SOURCE_ONLY.index("import ctypes")) + 1
    assert rows["so_codigo.py"]["inspection_note"] == f"inspeciona o corretor: usa ctypes na linha {line}"


def test_flagged_files_keep_the_honest_grade(graded):
    _mode, _folder, rows, doc = graded
    honest = rows["honesta.py"]
    assert honest["inspection"] == [] and honest["inspection_note"] is None and honest["passed"]
    for name in FILES:
        assert [(c["id"], c["passed"]) for c in rows[name]["criteria"]] == \
               [(c["id"], c["passed"]) for c in honest["criteria"]], name
        assert rows[name]["score"] == honest["score"], name
    assert doc["summary"]["inspecting"] == len(FILES) - 1


def test_the_text_report_says_it(graded):
    mode, folder, _rows, _doc = graded
    run = _cli(["nivel-2", folder / "le_status.py"], mode)
    assert "inspeciona o corretor: lê /proc/self/status ao rodar (não muda a nota)" in run.stdout, run.stdout


@pytest.mark.parametrize("mode", MODES)
def test_no_honest_corpus_submission_is_flagged(mode):
    """The graders' own harness (the runner, the interpreter's start, the sandbox) reads nothing that
    flags: the whole honest corpus, graded as a class."""
    run = _cli(["todos", *HONEST, "--format", "json"], mode, timeout=900)
    doc = report_schema.check(json.loads(run.stdout))
    assert len(doc["submissions"]) == len(HONEST)
    assert {s["file"]: s["inspection_note"] for s in doc["submissions"] if s["inspection"]} == {}
    assert doc["summary"]["inspecting"] == 0


@pytest.mark.parametrize("mode", MODES)
def test_hostile_probes_are_flagged_from_their_runs(arena, mode):
    """The sandbox-fingerprint attacks: each gets the note, and those that read /proc get the run half."""
    files = [arena.render("one_fp", f"fp_{s}.py", check=s) for s in FP_SIGNS] + [arena.render("one_forge_closure")]
    run = advkit.run_cli(arena, files, *(("--isolamento", "estrito") if mode == "estrito" else (advkit._CONTAINER_ARG,)),
                         timeout=600)
    doc = report_schema.check(json.loads(run.out))
    rows = {os.path.basename(s["file"]): s for s in doc["submissions"]}
    assert [name for name, s in rows.items() if not s["inspection"]] == [], run.describe()
    read = {name: {s["path"] for s in row["inspection"] if s["origin"] == "execução"} for name, row in rows.items()}
    assert "/proc/self/status" in read["fp_seccomp.py"] and "/proc/self/status" in read["fp_nspid.py"]
    assert "/proc/self/mountinfo" in read["fp_mounts.py"] and "/proc/1/cmdline" in read["fp_proc1.py"]
    assert read["fp_umask.py"] == set()  # its probe reads nothing under /proc: the source half only
    assert run.leftovers == []


def test_detect_puts_the_run_first():
    class Trace:
        probes = [{"path": "/proc", "count": 3}]

    assert [s["text"] for s in detect("import inspect\n", [Trace()])] == [
        "lista os processos (/proc) ao rodar", "usa inspect na linha 1"]
