"""The class report: built once from the graded files (students → exercises → criteria, the class
summary, possible copies, ignored files, the report's facts); every output format only reads it.

Scores are over the whole assignment: a criterion that was not delivered, or that a `.py` cannot
answer, counts as not met. Formula (PROFESSORES.md, "Notas e pesos"): Σ met weights / Σ weights of every criterion of every
exercise of the assignment, times `nota_max`.
"""

from __future__ import annotations

from .. import exercises
from . import identity as who
from .report import normalise

# A criterion's state in the report (besides "ok" and "falhou").
ONLY_EXPORT = "só no arquivo exportado"
NOT_SENT = "não entregue"
NOT_GRADED = "não avaliado"
# A student's status.
APPROVED, FAILED, INCOMPLETE, ERROR, LIMIT, ABSENT = ("aprovado", "reprovado", "incompleto", "erro",
                                                      "não avaliado", "não entregou")
STATUSES = (APPROVED, FAILED, INCOMPLETE, ERROR, LIMIT, ABSENT)
# The hint beside a student whose code or run reaches for the grader's internals (graders.cli.inspection).
INSPECTS = "inspeciona o corretor"
MERGE_RULE = ("vários arquivos do mesmo aluno viram uma linha; em cada exercício vale a submissão com mais "
              "critérios cumpridos (no empate, a que vem por último na ordem dos arquivos)")


def titles(exercise: str) -> dict[str, str]:
    """{criterion id: its neutral title} ({} for an unknown exercise)."""
    try:
        return {c["id"]: c.get("title") or c["id"] for c in exercises.load(exercise)["criteria"]}
    except Exception:  # noqa: BLE001 - unknown exercise: the ids stand in
        return {}


def weights(exercise: str, overrides: dict | None = None) -> tuple[float, dict[str, float]]:
    """(the exercise's weight, {criterion: weight}) from exercise.toml (`weight`, default 1), then
    `overrides` ({exercise: {"peso": w, "criterios": {id: w}}}, the --pesos file)."""
    try:
        data = exercises.load(exercise)
    except Exception:  # noqa: BLE001
        return 1.0, {}
    extra = (overrides or {}).get(exercise, {})
    per = {c["id"]: float(c.get("weight", 1)) for c in data["criteria"]}
    per.update({k: float(v) for k, v in extra.get("criterios", {}).items() if k in per})
    return float(extra.get("peso", data.get("grading", {}).get("weight", 1))), per


def _criteria(result: dict | None, exercise: str, kind: str | None, names: dict) -> list[dict]:
    """Every criterion of the exercise, each with its state, the graded ones as the grader said."""
    graded = {c["id"]: c for c in (result or {}).get("criteria", [])} if result and "error" not in result else {}
    out = []
    for cid in names or [c["id"] for c in graded.values()]:
        c = graded.get(cid)
        if c is not None:
            out.append({**c, "title": names.get(cid, cid), "state": "ok" if c["passed"] else "falhou"})
            continue
        if result is None:
            state = NOT_SENT
        elif "error" in result:
            state = NOT_GRADED
        else:
            state = ONLY_EXPORT if kind == "py" else NOT_GRADED
        out.append({"id": cid, "title": names.get(cid, cid), "passed": False, "message": "", "state": state})
    return out


def _signs(result: dict | None) -> list[dict]:
    """The inspection signs of one graded exercise, as graders.cli.inspection made them (checked:
    they crossed from a worker as plain data)."""
    out = []
    for item in (result or {}).get("inspection") or []:
        if (isinstance(item, dict) and all(isinstance(item.get(k), str) for k in ("origin", "what", "text"))
                and isinstance(item.get("lines"), list) and all(type(n) is int for n in item["lines"])):
            sign = {"origin": item["origin"], "what": item["what"], "lines": item["lines"], "text": item["text"]}
            if isinstance(item.get("path"), str):
                sign["path"] = item["path"]
            out.append(sign)
    return out


def _inspection_note(signs: list[dict], several: bool) -> str | None:
    """`inspeciona o corretor: lê /proc/self/status ao rodar; usa ctypes na linha 3` (None: no sign)."""
    if not signs:
        return None
    return f"{INSPECTS}: " + "; ".join((f"{s['exercise']}: " if several else "") + s["text"] for s in signs)


def _exercise(result: dict | None, exercise: str, source: dict | None, student: str | None,
              weight: tuple[float, dict]) -> dict:
    names = titles(exercise)
    kind = source["kind"] if source else None
    criteria = _criteria(result, exercise, kind, names)
    _, per = weight
    met = sum(per.get(c["id"], 1.0) for c in criteria if c["state"] == "ok")
    judged = sum(per.get(c["id"], 1.0) for c in criteria if c["state"] in ("ok", "falhou"))
    total = sum(per.get(c["id"], 1.0) for c in criteria)
    if result is None:
        state = NOT_SENT
    elif "error" in result:
        state = NOT_GRADED if result.get("limit") is True else "erro"
    else:
        state = "avaliado"
    data = {"exercise": exercise, "file": source["file"] if source else None,
            "shown": source["shown"] if source else None, "student": student, "kind": kind, "state": state,
            "passed": bool(result and result.get("passed") is True),
            "criteria": criteria, "score": {"met": _n(met), "graded": _n(judged), "total": _n(total)},
            "timeline": (result or {}).get("timeline"), "writings": (result or {}).get("writings") or [],
            "inspection": _signs(result)}
    if result is not None and "error" in result:
        data["error"] = result["error"]
        if result.get("limit") is True:
            data["limit"] = True
    return data


def _writing_ids(exercise: str) -> list[str]:
    try:
        return [w["id"] for w in exercises.writings(exercise)]
    except Exception:  # noqa: BLE001 - unknown exercise: no written-answer columns
        return []


def _n(value: float):
    return int(value) if float(value).is_integer() else round(value, 4)


def _better(new: dict, old: dict | None, per: dict) -> bool:
    def key(r):
        if "error" in r:
            return (-1, 0)
        return (1, sum(per.get(c["id"], 1.0) for c in r["criteria"] if c["passed"]))
    return old is None or key(new) >= key(old)


def _status(row: dict, assignment: list[str]) -> str:
    if not row["files"]:
        return ABSENT
    results = [row["exercises"][ex] for ex in assignment]
    sent = [r for r in results if r["state"] != NOT_SENT]
    if row.get("error") and not sent:
        return ERROR
    if any(r["state"] == NOT_GRADED for r in sent):
        return LIMIT
    if any(r["state"] == "erro" for r in sent) or not sent:
        return ERROR
    if not all(r["passed"] for r in sent):
        return FAILED
    return APPROVED if len(sent) == len(results) else INCOMPLETE


def _kind(kinds: list) -> str | None:
    found = {k for k in kinds if k}
    return found.pop() if len(found) == 1 else ("misto" if found else None)


def build(rows: list[dict], assignment: list[str], mode: str, meta: dict, copies: list[dict], *,
          people: list | None = None, ignored: list[dict] | None = None, pesos: dict | None = None,
          nota_max: float = 10.0) -> dict:
    """The class report. `rows`: one per file read ({file, shown, student, kind, results, error?},
    see graders.cli.main.prepare); `people`: the roster, if any; `ignored`: [{"path", "reason"}]."""
    answered = [(r["shown"], set(r["results"])) for r in rows]
    folders = who.student_folders(answered)
    ex_weights = {ex: weights(ex, pesos) for ex in assignment}
    groups: dict[tuple, dict] = {}
    if people:
        for i, p in enumerate(people):
            groups[("turma", i)] = {"identity": who.Identity(("turma", i), p.name, who.FROM_ROSTER, p.email,
                                                             p.id_number, None, i), "files": []}
    index = who.RosterIndex(people) if people else None
    duplicates: set = set()
    for row in rows:
        ident = who.identify(row["shown"], row.get("student") if row.get("kind") == "export" else None,
                             folders, index, row.get("email"), row.get("id_number"))
        key = ident.key
        # A name alone (no roster, e-mail or matrícula) joins files only when they answer different
        # exercises: two files of one exercise under one name may be two people, never merged by guess.
        if key[0] in ("nome", "arquivo"):
            n = 0
            while key in groups and any(set(f["results"]) & set(row["results"]) for f in groups[key]["files"]):
                n += 1
                key = (*ident.key, n)
            if n:
                duplicates.add(ident.key)
        group = groups.setdefault(key, {"identity": ident, "files": []})
        if group["identity"].source == who.FROM_ROSTER and ident.source != who.FROM_ROSTER:
            group["identity"] = ident
        group["files"].append(row)
    students = []
    for group in groups.values():
        ident, files = group["identity"], group["files"]
        chosen: dict[str, tuple[dict, dict]] = {}
        for row in files:
            for ex, result in row["results"].items():
                if ex in ex_weights and _better(result, chosen.get(ex, (None,))[0], ex_weights[ex][1]):
                    chosen[ex] = (result, row)
        exercises_ = {ex: _exercise(chosen[ex][0] if ex in chosen else None, ex,
                                    chosen[ex][1] if ex in chosen else None, ident.name, ex_weights[ex])
                      for ex in assignment}
        first = files[0] if files else None
        errors = [f"{f['shown']}: {f['error']}" if len(files) > 1 else f["error"] for f in files if "error" in f]
        # Results of exercises outside the assignment (a narrowed --exercicios) are not errors.
        same_name = ident.key in duplicates or ident.key[:-1] in duplicates
        row = {"student": ident.name, "email": ident.email, "id_number": ident.id_number,
               "identity": ident.source,
               "identity_note": "mesmo nome de outra linha, com o mesmo exercício: confira se é a mesma pessoa"
                                if same_name else None, "roster": None if people is None else (ident.roster_note or "na turma"),
               "file": first["file"] if first else None, "shown": first["shown"] if first else None,
               "files": [{"file": f["file"], "shown": f["shown"], "kind": f["kind"],
                          "exercises": [ex for ex in f["results"] if ex in ex_weights],
                          **({"error": f["error"]} if "error" in f else {})} for f in files],
               "kind": _kind([f["kind"] for f in files]), "exercises": exercises_}
        if errors:
            row["error"] = "; ".join(errors)
        row["inspection"] = [{"exercise": ex, **sign} for ex, r in exercises_.items() for sign in r["inspection"]]
        row["inspection_note"] = _inspection_note(row["inspection"], len(assignment) > 1)
        met = sum(ex_weights[ex][0] * r["score"]["met"] for ex, r in exercises_.items())
        total = sum(ex_weights[ex][0] * r["score"]["total"] for ex, r in exercises_.items())
        fraction = round(met / total, 4) if total else 0.0
        row["score"] = {"met": _n(met), "total": _n(total), "fraction": fraction,
                        "grade": round(nota_max * fraction, 2)}
        row["status"] = _status(row, assignment)
        if row["status"] in (ERROR, LIMIT):
            # A file that could not be graded is not a zero: no grade until the instructor looks.
            row["score"].update(fraction=None, grade=None)
        row["passed"] = row["status"] == APPROVED
        students.append(row)
    # The copies name students as the rest of the report does (the identity, not the file name).
    names = {f["shown"]: row["student"] for row in students for f in row["files"]}
    copies = [{**c, "members": [{**m, "student": names.get(m["file"], m.get("student"))} for m in c["members"]]}
              for c in copies]
    report_meta = {**meta, "mode": mode, "assignment": list(assignment), "nota_max": nota_max,
                   "merge_rule": MERGE_RULE, "roster": people is not None,
                   # What every format names its columns by: each exercise's criteria and written answers.
                   "columns": {ex: {"criteria": titles(ex), "writings": _writing_ids(ex)} for ex in assignment},
                   "weights": {ex: {"exercise": _n(w), "criteria": {k: _n(v) for k, v in per.items()}}
                               for ex, (w, per) in ex_weights.items()}}
    return {"report": report_meta, "summary": summarise(students, assignment, len(rows), ignored or []),
            "students": students, "possible_copies": copies, "ignored": list(ignored or [])}


def summarise(students: list[dict], assignment: list[str], files: int, ignored: list) -> dict:
    """The class summary (the "summary" object of the JSON report)."""
    counts = {s: 0 for s in STATUSES}
    by_kind = {"py": {"total": 0, "passed": 0}, "export": {"total": 0, "passed": 0}}
    for row in students:
        counts[row["status"]] += 1
        if row["kind"] in by_kind and row["status"] in (APPROVED, FAILED, INCOMPLETE):
            by_kind[row["kind"]]["total"] += 1
            by_kind[row["kind"]]["passed"] += row["status"] == APPROVED
    per_exercise = {}
    for ex in assignment:
        results = [row["exercises"][ex] for row in students if row["exercises"][ex]["state"] == "avaliado"]
        criteria = {}
        for cid, name in (titles(ex) or {}).items():
            judged = [c for r in results for c in r["criteria"] if c["id"] == cid and c["state"] in ("ok", "falhou")]
            ok = sum(1 for c in judged if c["passed"])
            criteria[cid] = {"title": name, "passed": ok, "judged": len(judged),
                             "rate": round(ok / len(judged), 4) if judged else None}
        per_exercise[ex] = {"graded": len(results), "passed": sum(1 for r in results if r["passed"]),
                            "criteria": criteria}
    return {"students": len(students), "files": files, "approved": counts[APPROVED], "failed": counts[FAILED],
            "incomplete": counts[INCOMPLETE], "errors": counts[ERROR], "not_graded": counts[LIMIT],
            "not_submitted": counts[ABSENT],
            "unmatched": sum(1 for r in students if r["roster"] not in (None, "na turma")),
            "ignored": len(ignored), "inspecting": sum(1 for r in students if r.get("inspection")),
            "passed_by_kind": by_kind, "exercises": per_exercise}


def input_error(path: str, exercise: str, message: str) -> dict:
    return normalise({"file": path, "exercise": exercise, "passed": False, "criteria": [], "error": message})

