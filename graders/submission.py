"""Read one submission file (a `.py`, or the answers file the site exports) into a `Submission`;
anything else is refused with a `SubmissionError` whose text is a Portuguese message for the instructor.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass

EXPORT_FORMAT = "checkpoints-licao-2/respostas"
# Version 2 added `revealed` (answers the student chose to see); version 3, the student's optional
# `email` or `matricula` (for the instructor's gradebook). Versions 1 and 2 are still read.
EXPORT_VERSION = 3
EXPORT_VERSIONS = (1, 2, 3)
# Far above any real submission (an export holds a few short scripts), far below trouble.
MAX_BYTES = 1024 * 1024
# An integer literal longer than this is no part of an export (and CPython refuses > 4300 digits).
MAX_INT_DIGITS = 100


class SubmissionError(ValueError):
    """The file cannot be read as a submission (the CLI's exit code 2)."""


@dataclass
class Submission:
    code: str | None
    # None: a bare .py file, graded on its code criteria only.
    # Otherwise {question id: option id | [option ids]} (unanswered questions are absent).
    answers: dict | None
    # The student's written answers, {writing id: text} (not graded; shown to the instructor).
    texts: dict | None = None
    # Criteria whose answer the student chose to see ("Mostrar a resposta"); reported, never hidden.
    revealed: list | None = None
    # Who sent it: the export's optional top-level "student" (trimmed), or a .py file's name (stem).
    student: str | None = None
    # The export's optional `email` and `matricula` (version 3), trimmed.
    email: str | None = None
    id_number: str | None = None


def from_python(text: str, student: str | None = None) -> Submission:
    return Submission(code=text, answers=None, student=student)


MAX_STUDENT = 120


def _student(raw, field: str = "student") -> str | None:
    """The export's optional "student" (or "email", "matricula"): text (trimmed, at most MAX_STUDENT
    characters) or absent/null."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        what = {"student": "nome do aluno", "email": "e-mail do aluno", "matricula": "matrícula do aluno"}[field]
        raise SubmissionError(f"o campo {field} ({what}) deveria ser texto (veio {_describe(raw)})")
    name = " ".join(raw.split())
    return name[:MAX_STUDENT] or None


# --- the exported answers file --------------------------------------------------------------


def _describe(value) -> str:
    """A short JSON-like rendering of a value quoted in a message (never huge, never raises)."""
    if isinstance(value, dict):
        return "um objeto"
    if isinstance(value, list):
        return "uma lista"
    if isinstance(value, str) and len(value) > 40:
        value = value[:40] + "…"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError):
        return "um valor inválido"
    return text if len(text) <= 60 else text[:60] + "…"


def _refuse_duplicates(pairs: list) -> dict:
    result = {}
    for key, value in pairs:
        if key in result:
            raise SubmissionError(f"o arquivo de respostas tem a chave {_describe(key)} repetida no mesmo objeto")
        result[key] = value
    return result


def _refuse_constant(name: str):
    raise SubmissionError(f"o arquivo de respostas contém {name}, que não é um valor JSON válido")


def _bounded_int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_INT_DIGITS:
        raise SubmissionError(f"o arquivo de respostas contém um número grande demais ({len(literal)} algarismos)")
    return int(literal)


def _parse_json(text: str):
    try:
        return json.loads(
            text,
            object_pairs_hook=_refuse_duplicates,
            parse_constant=_refuse_constant,
            parse_int=_bounded_int,
        )
    except SubmissionError:
        raise
    except json.JSONDecodeError as exc:
        raise SubmissionError(
            f"o arquivo de respostas não é um JSON válido (erro na linha {exc.lineno}, coluna {exc.colno})"
        ) from None
    except RecursionError:
        raise SubmissionError("o arquivo de respostas tem listas ou objetos aninhados fundo demais") from None
    except (ValueError, TypeError):
        raise SubmissionError("o arquivo de respostas não é um JSON válido") from None


def _answers(exercise_id: str, raw) -> dict:
    """Check an entry's answers: null means none; each value a str, a list of str, or null."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SubmissionError(
            f"o campo answers de {_describe(exercise_id)} deveria ser um objeto (veio {_describe(raw)})"
        )
    answers = {}
    for question, value in raw.items():
        if value is None:  # what the site writes for a single-choice question left blank
            continue
        if isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            answers[question] = list(value) if isinstance(value, list) else value
            continue
        raise SubmissionError(
            f"a resposta {_describe(question)} de {_describe(exercise_id)} deveria ser o id de uma opção "
            f"(texto) ou uma lista de ids (veio {_describe(value)})"
        )
    return answers


def _entry(exercise_id: str, entry, version: int = EXPORT_VERSION) -> Submission:
    if not isinstance(entry, dict):
        raise SubmissionError(
            f"a entrada de {_describe(exercise_id)} no arquivo de respostas deveria ser um objeto "
            f"(veio {_describe(entry)})"
        )
    code = entry.get("code")
    if code is not None and not isinstance(code, str):
        raise SubmissionError(f"o campo code de {_describe(exercise_id)} deveria ser texto (veio {_describe(code)})")
    return Submission(code=code, answers=_answers(exercise_id, entry.get("answers")),
                      texts=_texts(exercise_id, entry.get("texts")),
                      # Version 1 had no `revealed`: a stray key there is not the student's choice.
                      revealed=_revealed(exercise_id, entry.get("revealed")) if version >= 2 else None)


def _revealed(exercise_id: str, raw) -> list | None:
    """[criterion id, ...] whose answer the student revealed: a list of text, or null."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise SubmissionError(
            f"o campo revealed de {_describe(exercise_id)} deveria ser uma lista de ids (veio {_describe(raw)})"
        )
    return list(dict.fromkeys(raw))


MAX_TEXT = 5000


def _texts(exercise_id: str, raw) -> dict | None:
    """{writing id: text}: text only, each capped (a written answer is a paragraph or two)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise SubmissionError(f"o campo texts de {_describe(exercise_id)} deveria ser um objeto (veio {_describe(raw)})")
    texts = {}
    for key, value in raw.items():
        if value is None:
            continue
        if not isinstance(value, str):
            raise SubmissionError(
                f"a resposta escrita {_describe(key)} de {_describe(exercise_id)} deveria ser texto (veio {_describe(value)})"
            )
        value = value.replace("\r\n", "\n").replace("\r", "\n")  # line breaks as a text box gives them
        texts[key] = value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + "… [cortado]"
    return texts


def from_export(text: str, exercise_id: str) -> Submission:
    """The submission for `exercise_id` in an exported answers file:

        {"format": "checkpoints-licao-2/respostas", "version": 2,
         "exercises": {"nivel-2": {"answers": {"falha-escrita": "sobrescreve", ...},
                                    "code": "import json\\n...", "revealed": ["diagnostico-ponto-a"]}, ...}}

    `answers` maps a question id to an option id (a list of ids for multiple choice). `revealed`
    (version 2) lists the criteria whose answer the student chose to see; version 1 files have none.

    Refused (SubmissionError): text that is not JSON, or is nested deeper than the parser's
    recursion limit; NaN/Infinity; an integer literal of more than 100 digits; a key repeated
    in one object (anywhere in the file); a top level that is not an object or whose `format`
    differs; a `version` that is not the integer 1, 2 or 3 (1.0 and true are refused too); a missing or
    non-object `exercises`. Every entry of `exercises`, not only `exercise_id`'s, must be an
    object whose `code` is text or null and whose `answers` is an object or null; each answer
    must be a str, a list of str, or null. Null answers (the site's blank single-choice
    questions) are dropped; anything else of another type refuses the whole file. `texts`, the
    written answers, is an object of text (each capped at 5,000 characters) or null; `revealed`, a
    list of text or null (read in version 2 only). Other keys are ignored. An exercise absent
    from the file gives Submission(code=None, answers={}).
    """
    student, found = export_entries(text)
    return found.get(exercise_id) or Submission(code=None, answers={}, student=student)


def export_entries(text: str) -> tuple[str | None, dict[str, Submission]]:
    """(the student's name or None, {exercise id: Submission}) for every entry of an export,
    checked as `from_export` describes; `student`, when present, must be text (trimmed, cut at
    120 characters)."""
    data = _parse_json(text)
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise SubmissionError(
            f"o arquivo não é um arquivo de respostas exportado pelo site (format ≠ {EXPORT_FORMAT!r})"
        )
    expected = ", ".join(str(v) for v in EXPORT_VERSIONS[:-1]) + f" ou {EXPORT_VERSIONS[-1]}"
    if "version" not in data:
        raise SubmissionError(f"o arquivo de respostas não diz a sua versão (esperada: {expected})")
    version = data["version"]
    if type(version) is not int or version not in EXPORT_VERSIONS:
        raise SubmissionError(
            f"versão {_describe(version)} do arquivo de respostas não é suportada (esperada: {expected})"
        )
    entries = data.get("exercises")
    if not isinstance(entries, dict):
        what = "não tem o campo exercises" if "exercises" not in data else (
            f"tem um campo exercises que deveria ser um objeto (veio {_describe(entries)})")
        raise SubmissionError(f"o arquivo de respostas {what}")
    student = _student(data.get("student"))
    email, id_number = (_student(data.get("email"), "email"), _student(data.get("matricula"), "matricula")) \
        if version >= 3 else (None, None)
    found = {key: _entry(key, entry, version) for key, entry in entries.items()}
    for submission in found.values():
        submission.student, submission.email, submission.id_number = student, email, id_number
    return student, found


# --- reading a file -------------------------------------------------------------------------


def _os_error(exc: OSError) -> SubmissionError:
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return SubmissionError("arquivo não encontrado")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return SubmissionError("sem permissão para ler o arquivo")
    if exc.errno == errno.EISDIR:
        return SubmissionError("é uma pasta, não um arquivo")
    if exc.errno == errno.ELOOP:
        return SubmissionError("o caminho tem links simbólicos em ciclo")
    if exc.errno == errno.ENAMETOOLONG:
        return SubmissionError("o caminho do arquivo é longo demais")
    code = errno.errorcode.get(exc.errno, str(exc.errno)) if exc.errno is not None else "desconhecido"
    return SubmissionError(f"não foi possível ler o arquivo (erro do sistema {code})")


def _not_regular(mode: int) -> SubmissionError | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return SubmissionError("é uma pasta, não um arquivo")
    if stat.S_ISFIFO(mode):
        kind = "um pipe (FIFO)"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        kind = "um dispositivo"
    elif stat.S_ISSOCK(mode):
        kind = "um socket"
    else:
        kind = "um arquivo especial"
    return SubmissionError(f"não é um arquivo comum (é {kind}): entregue um arquivo .py ou .json salvo em disco")


def _too_big() -> SubmissionError:
    return SubmissionError(f"arquivo grande demais (mais de {MAX_BYTES // (1024 * 1024)} MB)")


def _read_bytes(path: str) -> bytes:
    """The file's bytes, if it is a regular file of at most MAX_BYTES (symlinks are followed)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise _os_error(exc) from None
    except ValueError:  # e.g. a NUL character in the path
        raise SubmissionError("o caminho do arquivo contém um caractere inválido") from None
    # Refuse FIFOs, devices and sockets before opening: opening some has side effects.
    problem = _not_regular(mode)
    if problem:
        raise problem
    flags = os.O_RDONLY
    for name in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC", "O_BINARY"):
        flags |= getattr(os, name, 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _os_error(exc) from None
    try:
        info = os.fstat(fd)
        # The path may have been swapped between stat() and open(): judge what was opened.
        problem = _not_regular(info.st_mode)
        if problem:
            raise problem
        if info.st_size > MAX_BYTES:
            raise _too_big()
        chunks, total = [], 0
        while True:  # st_size can lie (a file still growing, /proc): cap what is read too
            chunk = os.read(fd, MAX_BYTES + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > MAX_BYTES:
                raise _too_big()
        return b"".join(chunks)
    except OSError as exc:
        raise _os_error(exc) from None
    finally:
        os.close(fd)


def _decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SubmissionError("o arquivo está em UTF-16, não em UTF-8: salve-o de novo como UTF-8")
    try:
        text = data.decode("utf-8-sig")  # an editor's UTF-8 BOM is dropped
    except UnicodeDecodeError as exc:
        raise SubmissionError(
            f"o arquivo não está em UTF-8 (byte inválido na posição {exc.start}): salve-o de novo como UTF-8"
        ) from None
    # Universal newlines, as open() in text mode would give.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read(path: str, exercise_id: str) -> Submission:
    """Read `path` (.py or .json, any case) into a Submission, or raise SubmissionError.

    Refused: another extension ("use um arquivo .py ..."), a missing file ("arquivo não
    encontrado"), a directory, FIFO, device or socket (checked before and after opening, the
    open is non-blocking so it never hangs), more than MAX_BYTES ("arquivo grande demais"),
    an unreadable file, bytes that are not UTF-8 (a UTF-8 BOM is accepted and dropped), and
    whatever from_export refuses. A symlink to a regular file is followed.
    """
    text, is_export = read_text(path)
    if is_export:
        return from_export(text, exercise_id)
    return from_python(text)  # the CLI names a .py's sender by its file name (`stem`)


def stem(path) -> str:
    """A .py file's name without folder and extension: who sent it, when nothing else says."""
    return os.path.splitext(os.path.basename(os.fsdecode(os.fspath(path))))[0]


def read_text(path) -> tuple[str, bool]:
    """(the file's text, whether it is an export): the checks of `read`, without parsing."""
    name = os.fsdecode(os.fspath(path)).lower()
    if not name.endswith((".py", ".json")):
        raise SubmissionError("use um arquivo .py (código) ou .json (respostas exportadas pelo site)")
    return _decode(_read_bytes(path)), name.endswith(".json")


def text_of(name: str, data: bytes) -> tuple[str, bool]:
    """read_text for bytes already in memory (a file inside a .zip), with the same checks."""
    if not name.lower().endswith((".py", ".json")):
        raise SubmissionError("use um arquivo .py (código) ou .json (respostas exportadas pelo site)")
    if len(data) > MAX_BYTES:
        raise _too_big()
    return _decode(data), name.lower().endswith(".json")
