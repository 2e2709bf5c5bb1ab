"""Clean and normalise the graders' results (every student-influenced string escaped and capped, a
malformed result turned into an error), and render a plain list of results as text, CSV or JSON; the
CLI's class report (graders.cli.classreport) reads only normalised results."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import reprlib
import unicodedata

from .. import exercises

# Messages, hints, errors, file names, ids and any other string, in characters (after escaping).
MESSAGE_LIMIT = 2000
# Strings inside a criterion's "disk" view (the grader already cuts the file excerpt at 4,000).
DISK_LIMIT = 4000
KEY_LIMIT = 200
# Extra values (disk views, unknown keys) are cut below this depth and after this many items.
MAX_DEPTH = 20
MAX_ITEMS = 1000
CUT = "… [cortado]"
UNKNOWN_FILE = "(arquivo sem nome)"

# Controls (C0, DEL, C1), format characters (Cf: every bidi embedding, override, isolate and mark,
# zero-width spaces, BOM, tags), lone surrogates, line and paragraph separators.
_ESCAPE_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))
# Invisible format characters that ordinary text needs (joiners inside emoji and some scripts).
_KEEP_FORMAT = frozenset("\u200c\u200d")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 200


def _escape_char(ch: str, keep_newlines: bool) -> str:
    if keep_newlines and ch in "\n\t":
        return ch
    if ch in _NAMED:
        return _NAMED[ch]
    if unicodedata.category(ch) in _ESCAPE_CATEGORIES and ch not in _KEEP_FORMAT:
        code = ord(ch)
        if code <= 0xFF:
            return f"\\x{code:02x}"
        if code <= 0xFFFF:
            return f"\\u{code:04x}"
        return f"\\U{code:08x}"
    return ch


def _to_text(value) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        if isinstance(value, (bool, float)):
            return str(value)
        if isinstance(value, int):
            return str(value) if value.bit_length() <= 1000 else "(número grande demais)"
        return _repr.repr(value)
    except Exception:  # noqa: BLE001 - a rendering must never raise
        return "(valor ilegível)"


def clean(value, limit: int = MESSAGE_LIMIT, *, keep_newlines: bool = False) -> str:
    """`value` as one safe line of text: invisible characters escaped, at most `limit` chars + CUT.

    Escaped as \\n, \\r, \\t, \\xNN, \\uNNNN or \\UNNNNNNNN: control characters (C0, DEL, C1 such as
    ESC and CSI), bidi controls, other invisible format characters (except the zero-width joiners),
    line/paragraph separators and lone surrogates (so the text always encodes to UTF-8). With
    keep_newlines (JSON, which escapes them itself) newlines and tabs stay as they are.
    """
    text = _to_text(value)
    if len(text) <= limit:
        # Nothing to escape, the common case, checked in C: JSON keeps newlines and tabs (a pretty-printed
        # checkpoint in a timeline is all lines), and they are the only unprintable characters allowed.
        probe = text.replace("\n", "").replace("\t", "") if keep_newlines else text
        if probe.isprintable():
            return text
    pieces, size = [], 0
    for ch in text:  # stops at the limit, however long the text is
        piece = ch if ch.isprintable() else _escape_char(ch, keep_newlines)
        if size + len(piece) > limit:
            return "".join(pieces) + CUT
        pieces.append(piece)
        size += len(piece)
    return "".join(pieces)


def _sanitise(value, limit: int = MESSAGE_LIMIT, depth: int = 0):
    """A JSON-safe copy of an arbitrary value: strings cleaned, numbers finite, size bounded."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if value.bit_length() <= 1000 else "(número grande demais)"
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return clean(value, limit, keep_newlines=True)
    if isinstance(value, (dict, list, tuple)):
        if depth >= MAX_DEPTH:
            return "(aninhado fundo demais)"
        if isinstance(value, dict):
            items = itertools.islice(value.items(), MAX_ITEMS)
            result = {clean(k, KEY_LIMIT): _sanitise(v, limit, depth + 1) for k, v in items}
            if len(value) > MAX_ITEMS:
                result["…"] = f"[cortado: mais {len(value) - MAX_ITEMS} itens]"
            return result
        result = [_sanitise(v, limit, depth + 1) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            result.append(f"… [cortado: mais {len(value) - MAX_ITEMS} itens]")
        return result
    return clean(value, limit)


def _describe_type(value) -> str:
    names = {dict: "um objeto", list: "uma lista", str: "um texto", type(None): "null", bool: "um booleano"}
    return names.get(type(value), "um número" if isinstance(value, (int, float)) else "outro tipo")


class _Normalised(dict):
    """A result `normalise` made (it remembers its kind): the renderers trust it as it is, so a batch
    is cleaned once, in the CLI's workers, not again for every format."""

    kind = "ok"


def _normalise(result) -> tuple[dict, str]:
    """(the trusted copy, kind) with kind "ok", "input" (an input error) or "malformed"."""
    if type(result) is _Normalised:
        return result, result.kind
    if not isinstance(result, dict):
        return {"file": UNKNOWN_FILE, "exercise": "", "passed": False, "criteria": [],
                "error": f"resultado malformado (veio {_describe_type(result)} em vez de um objeto)"}, "malformed"
    file = clean(result["file"]) if isinstance(result.get("file"), str) and result["file"] else UNKNOWN_FILE
    head = {"file": file, "exercise": clean(result.get("exercise"))}
    extras = {
        clean(k, KEY_LIMIT): _sanitise(v)
        for k, v in itertools.islice(result.items(), MAX_ITEMS)
        if k not in ("file", "exercise", "passed", "criteria", "error")
    }
    if "error" in result:
        error = clean(result["error"]) or "(erro sem descrição)"
        return {**head, "passed": False, "criteria": [], "error": error, **extras}, "input"
    problems, criteria = [], []
    raw = result.get("criteria")
    if not isinstance(raw, list):
        problems.append(f"criteria deveria ser uma lista (veio {_describe_type(raw)})")
        raw = []
    for number, c in enumerate(raw, 1):
        if not isinstance(c, dict) or not isinstance(c.get("id"), str) or not isinstance(c.get("passed"), bool):
            problems.append(f"o critério {number} não tem id (texto) e passed (verdadeiro ou falso)")
            break
        item = {"id": clean(c["id"]), "passed": c["passed"], "message": clean(c.get("message"))}
        if "hint" in c:
            item["hint"] = clean(c["hint"])
        if "disk" in c:
            item["disk"] = _sanitise(c["disk"], DISK_LIMIT)
        for k, v in itertools.islice(c.items(), MAX_ITEMS):
            if k not in ("id", "passed", "message", "hint", "disk"):
                item[clean(k, KEY_LIMIT)] = _sanitise(v)
        criteria.append(item)
    passed = result.get("passed")
    if not isinstance(passed, bool):
        problems.append(f"passed deveria ser verdadeiro ou falso (veio {_describe_type(passed)})")
    elif passed and not (criteria and all(c["passed"] for c in criteria)):
        problems.append("passed é verdadeiro, mas nem todos os critérios passaram")
    if problems:
        error = "resultado malformado: " + "; ".join(problems)
        return {**head, "passed": False, "criteria": [], "error": error, **extras}, "malformed"
    return {**head, "passed": passed, "criteria": criteria, **extras}, "ok"


def normalise(result) -> dict:
    """A copy of one result every renderer (and the exit code) can trust, whatever `result` is.

    Always {"file", "exercise", "passed" (bool), "criteria" (list)}, every string cleaned (see
    `clean`; JSON-safe, capped), plus "error" for an input error or a malformed result: not a dict,
    criteria not a list, a criterion without a str id and a bool passed, passed not a bool, or passed
    true while some criterion failed (or there is none). A result with "error" has passed false.
    """
    data, kind = _normalise(result)
    if type(data) is not _Normalised:
        data = _Normalised(data)
        data.kind = kind
    return data


REVEALED = "resposta revelada"


def plural(n: int, one: str, many: str) -> str:
    """`1 critério`, `0 critérios`, `6 critérios`."""
    return f"{n} {one if n == 1 else many}"


def revealed(criterion: dict) -> bool:
    """The student chose "Mostrar a resposta" for this criterion (from a version-2 export)."""
    return criterion.get("revealed") is True


def _results(results) -> list:
    if results is None:
        return []
    return list(results) if isinstance(results, (list, tuple)) else [results]


def name_of(r: dict) -> str:
    """The file as reports show it, with the student beside it when the file name does not already
    say it: `respostas-licao-2.json (aluno: Ana Júlia)`, but `entregas/ana.py`."""
    student = r.get("student")
    if not isinstance(student, str) or not student:
        return r["file"]
    stem = r["file"].replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return r["file"] if student == stem else f"{r['file']} (aluno: {clean(student, 120)})"


def result_lines(r: dict, title: str, indent: str = "", kind: str | None = None) -> list[str]:
    """One result as text: `title: STATUS (k de n critérios)`, one line per criterion (`[ok    ]` /
    `[falhou]`, "(resposta revelada)" after the id when the student chose to see that answer), then
    the written answers. `kind`: what `_normalise` said of `r`, when the caller already asked."""
    if kind is None:
        r, kind = _normalise(r)
    if kind == "input":
        label = "NÃO AVALIADO" if r.get("limit") is True else "ERRO DE ENTRADA"
        return [f"{indent}{title}: {label} — {r['error']}"]
    if kind == "malformed":
        return [f"{indent}{title}: ERRO — {r['error']}"]
    ok = sum(c["passed"] for c in r["criteria"])
    total = len(r["criteria"])
    status = "APROVADO" if r["passed"] else "REPROVADO"
    shown = sum(revealed(c) for c in r["criteria"])
    extra = f"; {plural(shown, 'resposta revelada', 'respostas reveladas')}" if shown else ""
    lines = [f"{indent}{title}: {status} ({ok} de {plural(total, 'critério', 'critérios')}{extra})"]
    for c in r["criteria"]:
        mark = "ok    " if c["passed"] else "falhou"
        note = c["message"] or c.get("hint", "")
        lines.append(f"{indent}  [{mark}] {c['id']}" + (f" ({REVEALED})" if revealed(c) else "") + (f": {note}" if note else ""))
    written = _written(r)
    if written:
        lines.append(f"{indent}  Respostas escritas (não entram na nota):")
        lines += [f"{indent}    {wid}: {clean(text)}" for wid, text in written.items()]
    return lines


def render_text(results) -> str:
    """One block per file (see `result_lines`), the student beside the file when known."""
    lines = []
    for raw in _results(results):
        r, kind = _normalise(raw)
        lines += result_lines(r, name_of(r), kind=kind)
    return "\n".join(lines) + "\n"


def _written(result: dict) -> dict[str, str]:
    """{writing id: the student's text} for the written answers that are not blank."""
    found = {}
    writings = result.get("writings")
    if isinstance(writings, list):
        for w in writings:
            if isinstance(w, dict) and isinstance(w.get("id"), str) and isinstance(w.get("text"), str) and w["text"].strip():
                found[w["id"]] = w["text"]
    return found


def _writing_ids(exercise: str) -> list[str]:
    try:
        return [w["id"] for w in exercises.writings(exercise)]
    except Exception:  # noqa: BLE001 - unknown exercise: no written-answer columns
        return []


def _cell(value) -> str:
    """A cleaned CSV cell that a spreadsheet will not run as a formula."""
    text = clean(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _criterion_ids(exercise: str, normalised: list[dict]) -> list[str]:
    try:
        return list(exercises.criterion_ids(exercise))
    except Exception:  # noqa: BLE001 - unknown exercise: the columns the results themselves name
        ids = []
        for r in normalised:
            ids += [c["id"] for c in r["criteria"] if c["id"] not in ids]
        return ids


def render_csv(results, exercise: str) -> str:
    """A header, then one row per file: file, exercise, passed (sim/não), one column per criterion
    of `exercise` (ok / falhou / empty, followed by " (resposta revelada)" when the student chose
    to see that answer), error, then one `texto:<id>` column per written answer
    the exercise asks for, then student (the export's name, or the .py file's), met and graded
    (criteria met / criteria graded; empty when not graded). Every row has the header's column count."""
    normalised = [_normalise(r)[0] for r in _results(results)]
    ids = _criterion_ids(exercise, normalised)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    texts = _writing_ids(exercise)
    writer.writerow([_cell(v) for v in ("file", "exercise", "passed", *ids, "error", *(f"texto:{t}" for t in texts),
                                        "student", "met", "graded")])
    for r in normalised:
        states = {c["id"]: ("ok" if c["passed"] else "falhou") + (f" ({REVEALED})" if revealed(c) else "")
                  for c in r["criteria"]}
        written = _written(r)
        writer.writerow([_cell(r["file"]), _cell(exercise), "sim" if r["passed"] else "não",
                         *(states.get(i, "") for i in ids), _cell(r.get("error", "")),
                         *(_cell(written.get(t, "")) for t in texts), _cell(r.get("student") or ""),
                         *(["", ""] if "error" in r else [sum(1 for c in r["criteria"] if c["passed"]), len(r["criteria"])])])
    return buffer.getvalue()


def render_json(results) -> str:
    """A JSON list, one normalised object per file (see `normalise`); always valid, always UTF-8 safe."""
    data = [_normalise(r)[0] for r in _results(results)]
    if not data:
        return "[]\n"
    # One file a line: still one JSON list, and the C encoder (an indented dump is pure Python).
    return "[\n" + ",\n".join(json.dumps(r, ensure_ascii=False, allow_nan=False) for r in data) + "\n]\n"


def rounded(exact: str | None, places: int, scale=1, comma: bool = False) -> str:
    """`exact` ("130/17", as the class report keeps a grade or an exercise's share) times `scale`,
    rounded once, half up, to `places` decimals: the one rounding every format uses, so 13/17 of 10
    is 7,6 with one decimal and 7.65 with two, never 7,7. "" when there is no value (not gradable)."""
    from fractions import Fraction

    if exact is None:
        return ""
    value = Fraction(exact) * Fraction(str(scale) if isinstance(scale, float) else scale)
    units = (value * 10 ** places + Fraction(1, 2)).__floor__()
    sign, units = ("-" if units < 0 else ""), abs(units)
    whole, part = divmod(units, 10 ** places)
    text = f"{sign}{whole}" + (f".{part:0{places}d}" if places else "")
    return text.replace(".", ",") if comma else text
