"""Who each graded file belongs to, ranked by how the source was authenticated: Moodle's own download
(a submission folder or flat file `Nome_N_assignsubmission_…`, blind `Participante_N_…`, team folders),
then the roster, then the student's folder or file name. A name, e-mail or matrícula typed inside an
export is a claim: it names the file only when Moodle did not, and a claim that disagrees with the
Moodle folder it came from is shown, never followed. Files of one person share one identity key.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from .. import exercises
from .roster import Person, fold

FROM_EXPORT, FROM_ROSTER, FROM_FOLDER, FROM_FILE = "arquivo exportado", "turma", "pasta", "nome do arquivo"
FROM_LMS = "entrega do Moodle"
NO_MATCH = "sem correspondência na turma"
# Moodle's "Baixar todas as entregas" (mod/assign/classes/downloader.php: get_student_prefix() and
# load_submissionplugin_filelist()): clean_filename(name with "_" made " " + "_" + N) + "_assignsubmission_"
# + plugin + "_", as a folder (download in folders) or as each file's name prefix (flat). N is
# get_uniqueid_for_user(): the participant id of this assignment, never the user's ID number. Team
# submissions (4.1+): the group's name and id; the default team has no id.
_LMS = re.compile(r"^(?P<name>[^_/]*?)(?:_(?P<n>\d+))?_assignsubmission_(?P<plugin>[a-z]+)_(?P<rest>.*)$", re.S)
_MOODLE_FOLDER = re.compile(r"^(.+?)_\d+_assignsubmission_\w+?_?$")
BLIND = frozenset({"participante", "participant"})  # get_string('participant', 'mod_assign') in pt_br, en
# lib/moodlelib.php clean_param(PARAM_FILE): control characters and & < > " ` | ' : \ / are dropped.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f&<>\"`|':\\/]")


def clean_filename(name: str) -> str:
    """A name as Moodle writes it in a download: `_` made a space (downloader), then clean_filename()."""
    return _UNSAFE.sub("", name.replace("_", " "))


@dataclass(frozen=True)
class Lms:
    """A submission as Moodle's download names it."""
    name: str               # the name before `_N_` ("Participante" when blind; a group's name in team mode)
    number: int | None      # N (None: a team download's default group)
    plugin: str             # "file", "onlinetext", …
    prefix: str             # the path up to and including Moodle's folder, or the flat file's name
    flat: bool              # "download in folders" off: the file itself carries the prefix

    @property
    def blind(self) -> bool:
        return fold(self.name.strip()) in BLIND

    @property
    def label(self) -> str:
        return f"{self.name}_{self.number}" if self.number is not None else self.name


def lms_of(shown: str) -> Lms | None:
    """The Moodle submission a path (relative to the class folder) comes from, if Moodle named it."""
    parts = shown.replace("\\", "/").split("/")
    for i, part in enumerate(parts):
        found = _LMS.match(part)
        if found:
            flat = i == len(parts) - 1
            return Lms(found.group("name").strip(), int(found.group("n")) if found.group("n") else None,
                       found.group("plugin"), "/".join(parts[:i + 1]), flat)
    return None
# Words in file and folder names that say what the file is, not whose it is.
_NOT_NAMES = frozenset({"nivel", "nivel1", "nivel2", "quiz", "sobrescrita", "respostas", "resposta", "licao",
                        "entrega", "exercicio", "checkpoint", "checkpoints", "solucao", "py", "json", "zip", "final",
                        "da", "de", "do", "das", "dos", "e"})
_EXERCISE_IN_NAME = re.compile(r"nivel[^0-9a-z]*\d+|quiz[^0-9a-z]*sobrescrita|licao[^0-9a-z]*\d+")
_EXERCISE_WORDS = frozenset(ex.replace("-", "") for ex in exercises.EXERCISE_IDS)
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass(frozen=True)
class Identity:
    key: tuple               # files with the same key are one student
    name: str | None
    source: str | None       # which of FROM_* named the student
    email: str | None = None
    id_number: str | None = None
    roster_note: str | None = None  # NO_MATCH or "ambíguo na turma: …" (None: matched, or no roster)
    person: int | None = None       # index in the roster


def tokens(text: str | None) -> tuple[str, ...]:
    """A name's words, folded (accents, case), without the words that name exercises or files."""
    # The exercise a name carries goes first (`nivel-2`, `nivel_2`, `quiz-sobrescrita`), so that any
    # other number stays: `aluno_1` and `aluno_2` are two students.
    text = _EXERCISE_IN_NAME.sub(" ", fold(text or ""))
    words = re.split(r"[^0-9a-z]+", text)
    return tuple(w for w in words if w and w not in _NOT_NAMES and w not in _EXERCISE_WORDS)


def _stem(shown: str) -> str:
    return os.path.splitext(shown.replace("\\", "/").rsplit("/", 1)[-1])[0]


def student_folders(files: list[tuple[str, set]]) -> dict[str, str]:
    """{top folder: student name} for the folders under the class folder that are one student's.

    `files`: (shown path, exercises it answers). A top folder is a student's when it is not an
    exercise's folder and no two of its files answer the same exercise (a folder of many students'
    exports is not one student); Moodle's download folders always are, named before the `_<id>_`."""
    seen: dict[str, list[set]] = {}
    for shown, answered in files:
        parts = shown.replace("\\", "/").split("/")
        if len(parts) > 1:
            seen.setdefault(parts[0], []).append(answered)
    found = {}
    for folder, answers in seen.items():
        moodle = _MOODLE_FOLDER.match(folder)
        if moodle:
            found[folder] = moodle.group(1).strip()
            continue
        if folder.lower() in exercises.EXERCISE_IDS or not tokens(folder):
            continue
        union: set = set()
        if all(not (a & union) and not union.update(a) for a in answers):
            found[folder] = folder[:-4] if folder.lower().endswith(".zip") else folder  # a student's .zip (--zip)
    return found


class RosterIndex:
    """The roster, indexed once: by e-mail, by matrícula, by Moodle's participant number (a grading
    worksheet), by the name as Moodle writes it in a download, and each person's name as a set of words."""

    def __init__(self, people: list[Person]):
        self.people = people
        self.by_participant = {p.participant: i for i, p in enumerate(people) if p.participant is not None}
        self.by_download_name: dict[str, list] = {}
        self.by_group: dict[str, list] = {}
        for i, p in enumerate(people):
            self.by_download_name.setdefault(_plain(clean_filename(p.name)), []).append(i)
            if p.group:
                self.by_group.setdefault(_plain(clean_filename(p.group)), []).append(i)
        self.by_email = {fold(p.email): i for i, p in enumerate(people) if p.email}
        self.by_id = {fold(p.id_number): i for i, p in enumerate(people) if p.id_number}
        self.words = [frozenset(tokens(p.name)) for p in people]
        self.by_word: dict[str, set] = {}
        for i, words in enumerate(self.words):
            for w in words:
                self.by_word.setdefault(w, set()).add(i)

    def match(self, name_sources: list[str | None]) -> tuple[int | None, str | None]:
        """(roster index, None) for a single match; (None, note) for none or an ambiguous one."""
        for text in name_sources:
            if not text:
                continue
            key = fold(text.strip())
            if _EMAIL.match(key) and key in self.by_email:
                return self.by_email[key], None
            if key in self.by_id:
                return self.by_id[key], None
        for text in name_sources:
            wanted = set(tokens(text))
            if not wanted:
                continue
            # Candidates hold every word asked for; only they need comparing.
            candidates = set.intersection(*(self.by_word.get(w, set()) for w in wanted))
            exact = sorted(i for i in candidates if self.words[i] == wanted)
            partial = exact or (sorted(candidates) if len(wanted) >= 2 else [])
            if len(partial) == 1:
                return partial[0], None
            if len(partial) > 1:
                return None, "ambíguo na turma: " + ", ".join(self.people[i].name for i in partial)
        return None, NO_MATCH


def _plain(text: str) -> str:
    return " ".join(fold(text).split())


@dataclass(frozen=True)
class LmsMatch:
    """Whom a Moodle submission belongs to: roster indexes (several for a team), or why nobody."""
    people: tuple = ()
    note: str | None = None


def match_lms(lms: Lms, roster: RosterIndex | None) -> LmsMatch:
    """The roster people of a Moodle submission: by N exactly with a grading worksheet (a group
    folder by the worksheet's group column), by the name as clean_filename() writes it with a
    participants export; the number N is never compared with ID numbers."""
    if roster is None:
        return LmsMatch()
    name = _plain(lms.name)
    if roster.by_participant:
        # A team download (4.1+) is one folder per group, named by the group and the group's id: its
        # members are the worksheet rows of that group (a person is never named like a group).
        if name in roster.by_group:
            return LmsMatch(tuple(roster.by_group[name]))
        if lms.number is not None and lms.number in roster.by_participant:
            index = roster.by_participant[lms.number]
            person = roster.people[index]
            # A team folder (4.1+) carries the group's id, not a participant's: a group missing from
            # the worksheet's group column must not reach whichever participant has that number.
            written = [name] + [name[i + 1:].strip() for i, ch in enumerate(name) if ch == "-"]
            if lms.blind or _plain(clean_filename(person.name)) in written:
                return LmsMatch((index,))
            return LmsMatch(note=f"{NO_MATCH}: a pasta {lms.label} não é do Participante {lms.number} da planilha "
                                 f"({person.name}); se é a pasta de um grupo, o grupo não está na coluna de grupo "
                                 "da planilha: confira os grupos da tarefa no Moodle")
        if lms.number is None:
            return LmsMatch(note=f"{NO_MATCH}: pasta de grupo sem número ({lms.name}): os membros não são conhecidos; "
                                 "confira os grupos da tarefa no Moodle")
        return LmsMatch(note=f"{NO_MATCH}: nenhuma linha da planilha de notas é Participante {lms.number} "
                             "(baixe a planilha e as entregas da mesma tarefa)")
    if lms.blind:
        return LmsMatch(note=f"{NO_MATCH}: entrega anônima (Participante {lms.number}); só a planilha de notas "
                             "da tarefa diz quem é: use-a como --turma")
    candidates = [name]
    # Team submissions up to Moodle 4.0: "<group>-<member>_N_…", one folder per member.
    candidates += [name[i + 1:].strip() for i, ch in enumerate(name) if ch == "-"]
    for wanted in candidates:
        found = roster.by_download_name.get(wanted, [])
        if len(found) == 1:
            return LmsMatch((found[0],))
        if len(found) > 1:
            return LmsMatch(note="ambíguo na turma: " + ", ".join(roster.people[i].name for i in found)
                                 + " (mesmo nome; use a planilha de notas da tarefa como --turma)")
    return LmsMatch(note=f"{NO_MATCH}: nenhum aluno da lista se chama “{lms.name}” (o nome como o Moodle o escreve "
                         "na pasta); corrija o nome na lista, ou use a planilha de notas da tarefa como --turma, "
                         "que casa pelo número da entrega")


def identify(shown: str, export_name: str | None, folders: dict[str, str], roster: RosterIndex | None,
             email: str | None = None, id_number: str | None = None) -> Identity:
    """The identity of one file (see the module's docstring for the order); `email` and `id_number`:
    what the export says (version 3)."""
    top = shown.replace("\\", "/").split("/")[0]
    folder = folders.get(top) if "/" in shown.replace("\\", "/") else None
    stem = _stem(shown)
    if roster:
        index, note = roster.match([email, id_number, export_name, folder, stem])
        if index is not None:
            p = roster.people[index]
            said = [email, id_number, export_name]
            source = FROM_EXPORT if any(said) and roster.match(said)[0] == index else FROM_ROSTER
            return Identity(("turma", index), p.name, source, p.email, p.id_number, None, index)
        if note == NO_MATCH:
            # Say what the file claims and what would match it, so the instructor can fix the roster or the file.
            said = [x for x in (export_name, email, id_number) if x] or [x for x in (folder, stem) if x]
            note = (f"{NO_MATCH}: " + (f"o arquivo diz “{', '.join(said)}”, " if said else "")
                    + "e ninguém da lista tem esse nome completo, e-mail ou matrícula; corrija a lista ou a entrega")
    else:
        note = None
    if email or id_number:  # the export's own identity: the same e-mail or matrícula is one student
        key = ("email", fold(email)) if email else ("matricula", fold(id_number))
        return Identity(key, export_name or email or id_number, FROM_EXPORT, email, id_number, note)
    if export_name:
        email = export_name if _EMAIL.match(export_name.strip()) else None
        return Identity(("nome", tokens(export_name) or (fold(export_name),)), export_name, FROM_EXPORT,
                        email=email, roster_note=note)
    if folder:
        return Identity(("nome", tokens(folder)), folder, FROM_FOLDER, roster_note=note)
    # A file name alone names a student only for a .py (`caio.py`); an export without a name is its file.
    if tokens(stem) and not shown.lower().endswith(".json"):
        return Identity(("nome", tokens(stem)), stem, FROM_FILE, roster_note=note)
    return Identity(("arquivo", shown), None, None, roster_note=note)
