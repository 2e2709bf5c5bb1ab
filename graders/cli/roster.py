"""`--turma`: read a class roster (Moodle's participant export, the assignment's grading worksheet, or
any CSV with a name and an e-mail and/or matrícula column) into a list of people the class report
gives one row each; a grading worksheet is also kept whole, to be filled in (`--format moodle-tarefa`).
"""

from __future__ import annotations

import csv
import io
import re
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
    participant: int | None = None  # the worksheet's "Participante N": Moodle's id for this assignment
    group: str | None = None        # the worksheet's group column (team assignments)
    row: int | None = None          # the worksheet row this person came from (0 = first after the header)


@dataclass
class Worksheet:
    """Moodle's grading worksheet ("Baixar planilha de notas"), kept as it came: its cells, its
    dialect and its encoding, so that `--format moodle-tarefa` changes only the grade and comment cells."""
    header: list
    rows: list
    delimiter: str
    encoding: str
    bom: bool
    newline: str
    id_col: int
    grade_col: int
    max_col: int | None
    feedback_col: int | None
    english: bool


@dataclass
class Roster:
    people: list
    worksheet: Worksheet | None = None
    recognised: dict | None = None   # {what: header as written}
    ignored: list | None = None      # headers the CLI does not read


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
# The grading worksheet (mod/assign/gradingtable.php, strings of mod_assign in pt_br and en).
_RECORD_ID = {"identificador", "identifier"}
_GRADE = {"nota", "grade"}
_MAX = {"nota maxima", "maximum grade"}
_FEEDBACK = {"comentarios de feedback", "feedback comments"}
_GROUP = {"grupo", "group"}
_PARTICIPANT = re.compile(r"^\s*\D*?\s*(\d+)\s*$")


def _decode(data: bytes) -> tuple[str, str, bool]:
    """(text, encoding, BOM?)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace"), "utf-8", True
    try:
        return data.decode("utf-8"), "utf-8", False
    except UnicodeDecodeError:
        # A spreadsheet saved "CSV" on Windows: Windows-1252 (’ is 0x92 there, a control code in Latin-1);
        # the five bytes 1252 leaves undefined are read as Latin-1 would.
        return data.decode("cp1252", errors="replace"), "cp1252", False


def parse(text: str) -> list[Person]:
    """The people in a roster's text; RosterError when no name column (or no person) is found."""
    return parse_roster(text).people


def parse_roster(text: str, encoding: str = "utf-8", bom: bool = False) -> Roster:
    """The roster in a text: its people, the worksheet (when it is Moodle's grading worksheet), and
    which columns were read and which were not."""
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if first_line.count(";") > first_line.count(",") else ("\t" if "\t" in first_line and "," not in first_line else ",")
    newline = "\r\n" if first_line.endswith("\r") else "\n"
    table = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    if not table:
        raise RosterError("a lista da turma está vazia")
    raw_header = table[0]
    header = [_header(h) for h in raw_header]

    def column(names: set) -> int | None:
        return next((i for i, h in enumerate(header) if h in names), None)

    first, last, full = column(_FIRST), column(_LAST), column(_FULL)
    email = column(_EMAIL)
    if email is None:
        email = next((i for i, h in enumerate(header) if "email" in h.replace(" ", "")), None)
    id_number, username = column(_ID), column(_USER)
    record, grade, top, feedback, group = (column(_RECORD_ID), column(_GRADE), column(_MAX), column(_FEEDBACK),
                                           column(_GROUP))
    if record is not None and grade is None:
        raise RosterError("a planilha de notas do Moodle precisa da coluna Nota (ou Grade)")
    used = {"nome": first if full is None else full, "sobrenome": last, "e-mail": email, "matrícula": id_number,
            "usuário": username}
    if record is not None:
        used.update({"identificador": record, "nota": grade, "nota máxima": top, "comentários": feedback,
                     "grupo": group})
    recognised = {what: raw_header[i] for what, i in used.items() if i is not None}
    ignored = [raw_header[i] for i in range(len(raw_header)) if i not in used.values() and raw_header[i].strip()]
    if first is None and full is None and record is None:
        raise RosterError("a lista da turma não tem uma coluna de nome (Nome, Nome completo ou Aluno)")
    if email is None and id_number is None and record is None:
        raise RosterError("a lista da turma precisa de uma coluna de e-mail ou de matrícula")
    people = []
    for n, raw in enumerate(table[1:]):
        cells = [c.strip() for c in raw]

        def get(i):
            return cells[i] if i is not None and i < len(cells) and cells[i] else None

        name = get(full) or " ".join(p for p in (get(first), get(last)) if p)
        participant = None
        if record is not None:
            found = _PARTICIPANT.match(get(record) or "")
            participant = int(found.group(1)) if found else None
        if not name and not get(email) and not get(id_number) and participant is None:
            continue  # a blank line
        people.append(Person(" ".join(name.split()) or (get(email) or get(id_number) or f"Participante {participant}"),
                             get(email), get(id_number), get(username), participant, get(group), n))
    if not people:
        raise RosterError("a lista da turma não tem nenhum aluno")
    sheet = None
    if record is not None:
        english = fold(raw_header[record].strip()) == "identifier"
        sheet = Worksheet(raw_header, table[1:], delimiter, encoding, bom, newline, record, grade, top, feedback,
                          english)
    return Roster(people, sheet, recognised, ignored)


def read(path: str) -> list[Person]:
    return read_roster(path).people


def read_roster(path: str) -> Roster:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise RosterError(f"lista da turma não encontrada: {path}") from None
    except OSError as exc:
        raise RosterError(f"não consegui ler a lista da turma {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise RosterError("a lista da turma passa de 4 MB: não parece uma lista de alunos")
    text, encoding, bom = _decode(data)
    return parse_roster(text, encoding, bom)
