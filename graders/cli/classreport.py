"""The class report: built once from the graded files (students → exercises → criteria, the class
summary, possible copies, ignored files, the report's facts); every output format only reads it.

Scores are over the whole assignment: a criterion that was not delivered, or that a `.py` cannot
answer, counts as not met. Formula (PROFESSORES.md, "Notas e pesos"): Σ met weights / Σ weights of every criterion of every
exercise of the assignment, times `nota_max`; when the --pesos file gives exercises a `peso`, each
exercise's `peso` is its share of the grade instead (Σ peso × met/total of the exercise / Σ peso),
however many criteria it has. The grade is computed exactly (fractions) and rounded once, by each
format, to the places it shows (graders.cli.report.grade_text).

`gradable` — the one "not graded" state, the same in every format and in the JSON (PrairieLearn's
`gradable: false`; a later exporter reuses it as it is). A student row with `gradable: false` has
no grade value at all: `score.grade` and `score.fraction` are null, no gradebook row is written
(`--format moodle`), the worksheet's grade cell stays empty (`--format moodle-tarefa`), VPL gets
the minimum with the reason, and `ungraded_reason` says why in Portuguese. It is false when any file
of the student could not be graded: unreadable, an unknown export version or format, stopped by a
grader limit, not reached because the run was interrupted (Ctrl+C), or a file the CLI cannot read
as a submission (an archive inside the submission), or when all the student handed in was such a
file (online text, a `leia-me.txt`); such a file beside graded ones is only named, in `unread`.
Its status is then "erro" (nothing of theirs could be read) or "não avaliado".
"""

from __future__ import annotations

from fractions import Fraction

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
NOT_GRADABLE = (ERROR, LIMIT)  # the statuses of a row with gradable: false
INTERRUPTED = ("correção interrompida (Ctrl+C) antes deste arquivo: sem nota; corrija de novo para ter a nota")
ONLINE_TEXT = "texto online `{name}`: o código colado no Moodle não é corrigido; peça o arquivo"
# Reasons for skipping a file that say nothing about the student's work (system files).
_HARMLESS = ("oculto", "pasta oculta", "cache do Python")
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


def _exact(value) -> Fraction:
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def weights(exercise: str, overrides: dict | None = None) -> tuple[Fraction, dict[str, Fraction]]:
    """(the exercise's weight, {criterion: weight}) from exercise.toml (`weight`, default 1), then
    `overrides` ({exercise: {"peso": w, "criterios": {id: w}}}, the --pesos file)."""
    try:
        data = exercises.load(exercise)
    except Exception:  # noqa: BLE001
        return Fraction(1), {}
    extra = (overrides or {}).get(exercise, {})
    per = {c["id"]: _exact(c.get("weight", 1)) for c in data["criteria"]}
    per.update({k: _exact(v) for k, v in extra.get("criterios", {}).items() if k in per})
    return _exact(extra.get("peso", data.get("grading", {}).get("weight", 1))), per


def shares_given(pesos: dict | None) -> bool:
    """True when the --pesos file gives some exercise a `peso`: each exercise's peso is then its share."""
    return any(isinstance(v, dict) and "peso" in v for v in (pesos or {}).values())


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
              weight: tuple[float, dict], code_only: bool = False) -> dict:
    names = titles(exercise)
    kind = source["kind"] if source else None
    criteria = _criteria(result, exercise, kind, names)
    if code_only:
        code = set(exercises.code_criteria(exercise))
        criteria = [c for c in criteria if c["id"] in code]
    _, per = weight
    met = sum((per.get(c["id"], Fraction(1)) for c in criteria if c["state"] == "ok"), Fraction(0))
    judged = sum((per.get(c["id"], Fraction(1)) for c in criteria if c["state"] in ("ok", "falhou")), Fraction(0))
    total = sum((per.get(c["id"], Fraction(1)) for c in criteria), Fraction(0))
    if result is None:
        state = NOT_SENT
    elif "error" in result:
        state = NOT_GRADED if result.get("limit") is True else "erro"
    else:
        state = "avaliado"
    data = {"exercise": exercise, "file": source["file"] if source else None,
            "shown": source["shown"] if source else None, "student": student, "kind": kind, "state": state,
            "passed": bool(result and result.get("passed") is True),
            "criteria": criteria, "score": {"met": _n(met), "graded": _n(judged), "total": _n(total),
                                            "exact": _ratio(met, total)},
            "timeline": (result or {}).get("timeline"), "writings": (result or {}).get("writings") or [],
            "inspection": _signs(result)}
    if result is not None and "error" in result:
        data["error"] = result["error"]
        if result.get("limit") is True:
            data["limit"] = True
    return data


def _lms_in(shown: str, folders: dict) -> tuple:
    """(the Moodle submission a path comes from, a note): a file whose own name looks like Moodle's flat
    download but that sits in one student's folder was named by whoever handed it in, not by Moodle:
    the folder decides, and the note says so."""
    lms = who.lms_of(shown)
    top = shown.replace("\\", "/").split("/")[0]
    if lms is not None and lms.flat and "/" in shown.replace("\\", "/") and top in folders:
        return None, (f"o nome do arquivo imita um download do Moodle ({lms.label}), mas ele está na pasta "
                      f"{top}/, de um aluno: vale a pasta")
    return lms, None


def _writing_ids(exercise: str) -> list[str]:
    try:
        return [w["id"] for w in exercises.writings(exercise)]
    except Exception:  # noqa: BLE001 - unknown exercise: no written-answer columns
        return []


def _n(value):
    return int(value) if value == int(value) else round(float(value), 4)


def _ratio(num, den) -> str:
    """An exact fraction as text ("13/17"), what every format rounds from (graders.cli.report.grade_text)."""
    value = Fraction(num) / Fraction(den) if den else Fraction(0)
    return f"{value.numerator}/{value.denominator}"


def _better(new: dict, old: dict | None, per: dict) -> bool:
    def key(r):
        if "error" in r:
            return (-1, 0)
        return (1, sum((per.get(c["id"], Fraction(1)) for c in r["criteria"] if c["passed"]), Fraction(0)))
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
          nota_max: float = 10.0, worksheet=None, code_only: bool = False) -> dict:
    """The class report. `rows`: one per file read ({file, shown, student, kind, results, error?},
    see graders.cli.main.prepare); `people`: the roster, if any; `ignored`: [{"path", "reason"}];
    `worksheet`: Moodle's grading worksheet the roster came from (graders.cli.roster.Worksheet), kept for
    `--format moodle-tarefa`; `code_only`: grade what VPL collects, the code (the questions answered only
    in an export do not count)."""
    answered = [(r["shown"], set(r["results"])) for r in rows]
    unread_paths = [i["path"] for i in (ignored or []) if not _harmless(i["reason"])]
    folders = who.student_folders(answered + [(p, set()) for p in unread_paths])
    ex_weights = {ex: weights(ex, pesos) for ex in assignment}
    shares = shares_given(pesos)
    groups: dict[tuple, dict] = {}
    if people:
        for i, p in enumerate(people):
            groups[("turma", i)] = {"identity": who.Identity(("turma", i), p.name, who.FROM_ROSTER, p.email,
                                                             p.id_number, None, i), "files": []}
    index = who.RosterIndex(people) if people else None
    duplicates: set = set()

    def place(ident: who.Identity) -> dict:
        group = groups.setdefault(ident.key, {"identity": ident, "files": []})
        if group["identity"].source == who.FROM_ROSTER and ident.source != who.FROM_ROSTER:
            group["identity"] = ident
        return group

    for row in rows:
        lms, posed = _lms_in(row["shown"], folders)
        if lms is not None:
            targets, conflict = _from_lms(lms, row, index, people)
            for ident in targets:
                group = place(ident)
                group["files"].append(row)
                if conflict:
                    group.setdefault("notes", []).append(conflict)
            continue
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
                ident = who.Identity(key, ident.name, ident.source, ident.email, ident.id_number, ident.roster_note,
                                     ident.person)
        group = place(ident)
        group["files"].append(row)
        if posed:
            group.setdefault("notes", []).append(posed)
    # Files under a student's submission that the CLI did not grade go to that student's row.
    for item in ignored or []:
        if _harmless(item["reason"]):
            continue
        path = item["path"].replace("\\", "/")
        lms, _posed = _lms_in(path, folders)
        name = path.rsplit("/", 1)[-1]
        reason = item["reason"]
        if lms is not None:
            targets, _ = _from_lms(lms, {"shown": path}, index, people)
            if lms.plugin == "onlinetext" or name.lower() == "onlinetext.html":
                reason = ONLINE_TEXT.format(name=name)
        elif "/" in path and path.split("/")[0] in folders:
            targets = [who.identify(path, None, folders, index)]
        else:
            continue
        if reason == "não é .py nem .json":
            reason = f"entregou `{name}`, que não é .py nem .json"
        for ident in targets:
            place(ident).setdefault("unread", []).append({"path": item["path"], "reason": reason})
    students = []
    for group in groups.values():
        ident, files = group["identity"], group["files"]
        chosen: dict[str, tuple[dict, dict]] = {}
        for row in files:
            for ex, result in row["results"].items():
                if ex in ex_weights and _better(result, chosen.get(ex, (None,))[0], ex_weights[ex][1]):
                    chosen[ex] = (result, row)
        exercises_ = {ex: _exercise(chosen[ex][0] if ex in chosen else None, ex,
                                    chosen[ex][1] if ex in chosen else None, ident.name, ex_weights[ex], code_only)
                      for ex in assignment}
        first = files[0] if files else None
        errors = [f"{f['shown']}: {f['error']}" if len(files) > 1 else f["error"] for f in files if "error" in f]
        # Results of exercises outside the assignment (a narrowed --exercicios) are not errors.
        same_name = ident.key in duplicates or ident.key[:-1] in duplicates
        notes = list(dict.fromkeys(group.get("notes", [])))
        if same_name:
            notes.insert(0, "mesmo nome de outra linha, com o mesmo exercício: confira se é a mesma pessoa")
        unread = group.get("unread", [])
        row = {"student": ident.name, "email": ident.email, "id_number": ident.id_number,
               "identity": ident.source,
               "identity_note": "; ".join(notes) or None,
               "roster": None if people is None else (ident.roster_note or "na turma"),
               "participant": people[ident.person].participant if people and ident.person is not None else None,
               "worksheet_row": people[ident.person].row if worksheet and ident.person is not None else None,
               "file": first["file"] if first else None, "shown": first["shown"] if first else None,
               "files": [{"file": f["file"], "shown": f["shown"], "kind": f["kind"],
                          "exercises": [ex for ex in f["results"] if ex in ex_weights],
                          **({"error": f["error"]} if "error" in f else {})} for f in files],
               "unread": unread,
               "kind": _kind([f["kind"] for f in files]), "exercises": exercises_}
        if errors:
            row["error"] = "; ".join(errors)
        row["inspection"] = [{"exercise": ex, **sign} for ex, r in exercises_.items() for sign in r["inspection"]]
        row["inspection_note"] = _inspection_note(row["inspection"], len(assignment) > 1)
        row["score"] = _score(exercises_, ex_weights, shares, nota_max)
        row["status"] = _status(row, assignment)
        # Every file of the student that could not be graded, with its reason: any one of them keeps
        # the whole row without a grade until the instructor looks.
        reasons = [f"{f['shown']}: {f['error']}" for f in files if "error" in f]
        reasons += [f"{f['shown']}: {r['error']}" for f in files for ex, r in f["results"].items()
                    if ex in ex_weights and "error" in r]
        blocking = [u for u in unread if _blocks(u["reason"]) or not files]
        reasons += [f"{u['path']}: {u['reason']}" for u in blocking]
        if reasons and row["status"] not in NOT_GRADABLE:
            row["status"] = LIMIT
        if not files and unread:
            row["status"] = LIMIT
        row["gradable"] = row["status"] not in NOT_GRADABLE
        row["ungraded_reason"] = None if row["gradable"] else ("; ".join(dict.fromkeys(reasons))
                                                               or "nenhum arquivo pôde ser corrigido")
        if not row["gradable"]:
            # A file that could not be graded is not a zero: no grade until the instructor looks.
            row["score"].update(fraction=None, grade=None, exact=None)
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
    sheet = None
    if worksheet is not None:
        top = next((r[worksheet.max_col] for r in worksheet.rows
                    if worksheet.max_col is not None and len(r) > worksheet.max_col and r[worksheet.max_col].strip()), "")
        sheet = {"header": worksheet.header, "rows": worksheet.rows, "delimiter": worksheet.delimiter,
                 "newline": worksheet.newline, "bom": worksheet.bom, "encoding": worksheet.encoding,
                 "grade_col": worksheet.grade_col, "feedback_col": worksheet.feedback_col,
                 "comma": "," in top if top else not worksheet.english}
    return {"report": report_meta, "summary": summarise(students, assignment, len(rows), ignored or []),
            "students": students, "possible_copies": copies, "ignored": list(ignored or []), "worksheet": sheet}


def _harmless(reason: str) -> bool:
    return reason.startswith(_HARMLESS)


def _blocks(reason: str) -> bool:
    """An unread file that may hold the student's work (an archive, an unreadable file) keeps the row
    without a grade; a stray `leia-me.txt` or an online text beside graded files is only named (when
    it is all the student handed in, the row has no grade either)."""
    return not reason.startswith(("entregou `", "texto online")) and not _harmless(reason)


def _from_lms(lms, row: dict, index, people) -> tuple[list, str | None]:
    """(identities, conflict note) of a file Moodle's download names: the roster people it matches
    (every member of a team), or one identity of its own (N; never merged with another N)."""
    found = who.match_lms(lms, index)
    if found.people:
        targets = [who.Identity(("turma", i), people[i].name, who.FROM_LMS, people[i].email, people[i].id_number,
                                None, i) for i in found.people]
    else:
        name = f"Participante {lms.number}" if lms.blind else lms.name
        key = ("moodle", lms.number) if lms.number is not None else ("moodle", lms.name.casefold())
        targets = [who.Identity(key, name, who.FROM_LMS, roster_note=found.note if index else None)]
    claim = [row.get("email"), row.get("id_number"), row.get("student") if row.get("kind") == "export" else None]
    said = next((c for c in (claim[2], claim[0], claim[1]) if c), None)
    if not said:
        return targets, None
    holder = ", ".join(t.name for t in targets)
    if index is not None:
        other, _ = index.match(claim)
        if other is not None:
            if other in found.people:
                return targets, None
            return targets, (f"o arquivo diz {people[other].name}, mas veio da entrega de {holder} no Moodle "
                             "(a nota fica com quem entregou)")
    if lms.blind or set(who.tokens(said)) == set(who.tokens(holder)) or (
            found.people and set(who.tokens(said)) <= set(who.tokens(holder))):
        return targets, None
    return targets, f"o arquivo diz {said}, mas veio da entrega de {holder} no Moodle (a nota fica com quem entregou)"


def _score(exercises_: dict, ex_weights: dict, shares: bool, nota_max: float) -> dict:
    """The whole assignment's score, exact: pooled criteria, or each exercise's peso as its share."""
    sums = {ex: _sums(r, ex_weights[ex][1]) for ex, r in exercises_.items()}
    met = sum((ex_weights[ex][0] * m for ex, (m, _) in sums.items()), Fraction(0))
    total = sum((ex_weights[ex][0] * t for ex, (_, t) in sums.items()), Fraction(0))
    if shares:
        parts = [(ex_weights[ex][0], m / t if t else Fraction(0)) for ex, (m, t) in sums.items()]
        whole = sum((w for w, _ in parts), Fraction(0))
        fraction = sum((w * f for w, f in parts), Fraction(0)) / whole if whole else Fraction(0)
        met = sum((m for m, _ in sums.values()), Fraction(0))
        total = sum((t for _, t in sums.values()), Fraction(0))
    else:
        fraction = met / total if total else Fraction(0)
    grade = _exact(nota_max) * fraction
    return {"met": _n(met), "total": _n(total), "fraction": _round(fraction, 4), "grade": _round(grade, 2),
            "exact": f"{grade.numerator}/{grade.denominator}"}


def _sums(result: dict, per: dict) -> tuple[Fraction, Fraction]:
    """(met, total) of one exercise, exact, from its criteria and their weights."""
    weight = [(per.get(c["id"], Fraction(1)), c["state"] == "ok") for c in result["criteria"]]
    return sum((w for w, ok in weight if ok), Fraction(0)), sum((w for w, _ in weight), Fraction(0))


def _round(value: Fraction, places: int) -> float:
    """Half up, from the exact value (never a float's binary neighbour)."""
    scaled = value * 10 ** places
    return float(Fraction((scaled + Fraction(1, 2)).__floor__(), 10 ** places))


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

