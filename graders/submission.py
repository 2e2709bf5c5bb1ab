"""Read a submission: a `.py` file, or the answers file the site exports (format below).

    {"format": "checkpoints-licao-2/respostas", "version": 1,
     "exercises": {"nivel-2": {"answers": {"falha-escrita": "sobrescreve", ...},
                                "code": "import json\\n..."}, ...}}

`answers` maps a question id to an option id (a list of ids for multiple choice).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

EXPORT_FORMAT = "checkpoints-licao-2/respostas"
EXPORT_VERSION = 1


class SubmissionError(ValueError):
    """The file cannot be read as a submission (the CLI's exit code 2)."""


@dataclass
class Submission:
    code: str | None
    # None: a bare .py file, graded on its code criteria only.
    answers: dict | None


def from_python(text: str) -> Submission:
    return Submission(code=text, answers=None)


def from_export(text: str, exercise_id: str) -> Submission:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SubmissionError(f"o arquivo de respostas não é um JSON válido ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise SubmissionError(f"o arquivo não é um arquivo de respostas exportado pelo site (format ≠ {EXPORT_FORMAT!r})")
    if data.get("version") != EXPORT_VERSION:
        raise SubmissionError(
            f"versão {data.get('version')!r} do arquivo de respostas não é suportada (esperada: {EXPORT_VERSION})"
        )
    entry = (data.get("exercises") or {}).get(exercise_id) or {}
    if not isinstance(entry, dict):
        raise SubmissionError(f"a entrada de {exercise_id!r} no arquivo de respostas está malformada")
    code = entry.get("code")
    if code is not None and not isinstance(code, str):
        raise SubmissionError(f"o campo code de {exercise_id!r} deveria ser texto")
    answers = entry.get("answers") or {}
    if not isinstance(answers, dict):
        raise SubmissionError(f"o campo answers de {exercise_id!r} deveria ser um objeto")
    return Submission(code=code, answers=answers)


def read(path: str, exercise_id: str) -> Submission:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise SubmissionError("arquivo não encontrado") from None
    except UnicodeDecodeError:
        raise SubmissionError("o arquivo não está em UTF-8") from None
    except OSError as exc:
        raise SubmissionError(f"não foi possível ler o arquivo ({exc.strerror})") from None
    if path.endswith(".json"):
        return from_export(text, exercise_id)
    if path.endswith(".py"):
        return from_python(text)
    raise SubmissionError("use um arquivo .py (código) ou .json (respostas exportadas pelo site)")
