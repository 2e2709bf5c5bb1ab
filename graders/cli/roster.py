"""`--turma`: read a class roster (Moodle's participant export, or any CSV with a name and an e-mail
and/or matrícula column) into a list of people the class report gives one row each.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass

MAX_BYTES = 4 * 1024 * 1024


class RosterError(Exception):
    """The roster cannot be used; the message is the instructor's (Portuguese)."""


@dataclass(frozen=True)
class Person:
    name: str
    email: str | None = None
    id_number: str | None = None  # matrícula (Moodle's "Número de identificação" / "ID number")
    username: str | None = None


def fold(text: str) -> str:
    """Lower case, no accents, letters kept apart from their marks ("Øberg" → "oberg")."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    # Letters NFKD does not split (ø, ł, đ, æ, ß): the ASCII an instructor types for them.
    return text.translate(_LETTERS).casefold()


_LETTERS = str.maketrans({"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "æ": "ae", "Æ": "AE",
                          "œ": "oe", "Œ": "OE", "ß": "ss", "þ": "th", "Þ": "TH", "ı": "i"})


def _header(text: str) -> str:
    return " ".join(fold(text).replace("-", " ").replace("_", " ").split())


# Moodle's participant export in Portuguese and English, and the headers instructors write by hand.
_FIRST = {"nome", "first name", "firstname", "primeiro nome"}
_LAST = {"sobrenome", "last name", "lastname", "surname", "ultimo sobrenome"}
_FULL = {"nome completo", "full name", "fullname", "aluno", "aluna", "estudante", "name", "nome do aluno"}
_EMAIL = {"email", "e mail", "endereco de email", "endereco de e mail", "email address", "correio eletronico"}
_ID = {"matricula", "numero de matricula", "numero de identificacao", "id number", "idnumber", "ra", "nusp",
       "numero usp", "identificacao"}
_USER = {"username", "nome de usuario", "usuario", "login"}


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # a spreadsheet saved "CSV" on an older Windows


def parse(text: str) -> list[Person]:
    """The people in a roster's text; RosterError when no name column (or no person) is found."""
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if first_line.count(";") > first_line.count(",") else ("\t" if "\t" in first_line and "," not in first_line else ",")
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = [_header(h) for h in next(reader)]
    except StopIteration:
        raise RosterError("a lista da turma está vazia") from None

    def column(names: set) -> int | None:
        return next((i for i, h in enumerate(header) if h in names), None)

    first, last, full = column(_FIRST), column(_LAST), column(_FULL)
    email = column(_EMAIL)
    if email is None:
        email = next((i for i, h in enumerate(header) if "email" in h.replace(" ", "")), None)
    id_number, username = column(_ID), column(_USER)
    if first is None and full is None:
        raise RosterError("a lista da turma não tem uma coluna de nome (Nome, Nome completo ou Aluno)")
    if email is None and id_number is None:
        raise RosterError("a lista da turma precisa de uma coluna de e-mail ou de matrícula")
    people = []
    for raw in reader:
        cells = [c.strip() for c in raw]

        def get(i):
            return cells[i] if i is not None and i < len(cells) and cells[i] else None

        name = get(full) or " ".join(p for p in (get(first), get(last)) if p)
        if not name and not get(email) and not get(id_number):
            continue  # a blank line
        people.append(Person(" ".join(name.split()) or (get(email) or get(id_number)), get(email),
                             get(id_number), get(username)))
    if not people:
        raise RosterError("a lista da turma não tem nenhum aluno")
    return people


def read(path: str) -> list[Person]:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise RosterError(f"lista da turma não encontrada: {path}") from None
    except OSError as exc:
        raise RosterError(f"não consegui ler a lista da turma {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise RosterError("a lista da turma passa de 4 MB: não parece uma lista de alunos")
    return parse(_decode(data))
