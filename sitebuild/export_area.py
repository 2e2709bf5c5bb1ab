"""The answers' export area (name, contact, "Exportar respostas"), built into the page in its final form.

progress.js used to create it when the lesson's script ran, which pushed everything below it (the
exercises) down by ~300 px after the first paint; now the script only fills the saved values in and
wires the controls. Idempotent: an area already built is left as it is.
"""

from __future__ import annotations

import html as htmllib
import re

EMPTY_AREA = re.compile(r'<div class="lesson-export"></div>')
# The optional identity fields, in order: (kind, storage key, label, autocomplete, hint).
FIELDS = (
    ("name", "aluno", "Seu nome", "name",
     "Opcional. Vai no arquivo exportado e no nome dele, para o instrutor saber de quem é; fica guardado neste"
     " navegador."),
    ("contact", "contato", "Seu e-mail ou número de matrícula", "email",
     "Opcional. O mesmo que o instrutor tem na lista da turma (no Moodle, por exemplo): com ele, a nota vai para"
     " você."),
)
# The longest name or contact the page keeps (storage.js STUDENT_MAX).
MAX_LENGTH = 120
# Disabled until progress.js has wired them (and filled the saved values in): never an inert control.
BUTTON_ROW = ('<p><button type="button" class="md-button" disabled>Exportar respostas</button> <span>Baixa um arquivo .json'
              ' com seu código e suas respostas, para entregar ao instrutor.</span></p>'
              # Filled by progress.js once the file is made; its line is kept from the start (lesson.css).
              '<p class="lesson-export__done" role="status"></p>')


def grading_note() -> str:
    """"Como o professor corrige": what the instructor's CLI (graders/cli/classreport.py) counts."""
    from graders import exercises

    total = sum(len(exercises.criterion_ids(ex)) for ex in exercises.EXERCISE_IDS)
    items = (
        "O professor passa o arquivo exportado pelo mesmo corretor desta página: seu código roda de novo, e cada "
        "critério fica <em>ok</em> ou <em>falhou</em>, como aqui.",
        f"A nota é a parte dos critérios cumpridos, contando os de todos os exercícios da lição ({total} ao todo), "
        "vezes a nota máxima (10, se o professor não escolher outra). Todos os critérios valem o mesmo, salvo se o "
        "professor der pesos diferentes; um exercício que não veio no arquivo conta como critérios não cumpridos.",
        "As respostas escritas (as caixas de explicação) não entram nessa conta: uma pessoa as lê.",
        "O arquivo registra as respostas que você pediu para ver (“Mostrar a resposta”); o conselho sobre falta de "
        "energia não conta para a nota.",
    )
    return ('<details class="lesson-export__grading"><summary>Como o professor corrige</summary><ul>'
            + "".join(f"<li>{item}</li>" for item in items) + "</ul></details>")


def field(kind: str, key: str, label: str, autocomplete: str, hint: str, number: int) -> str:
    ident = f"lesson-export-{key}-{number}"
    esc = htmllib.escape
    return (f'<p class="lesson-export__student"><label for="{ident}">{esc(label)}</label>'
            f'<input id="{ident}" type="text" name="{key}" autocomplete="{autocomplete}" maxlength="{MAX_LENGTH}"'
            f' class="lesson-export__{kind}" aria-describedby="{ident}-ajuda" disabled>'
            f'<span id="{ident}-ajuda" class="lesson-export__hint">{esc(hint)}</span></p>')


def build_export_areas(page: str) -> str:
    count = 0
    note = grading_note() if EMPTY_AREA.search(page) else ""

    def area(_match: re.Match) -> str:
        nonlocal count
        count += 1
        fields = "".join(field(*spec, count) for spec in FIELDS)
        return f'<div class="lesson-export" data-built>{fields}{BUTTON_ROW}{note}</div>'

    return EMPTY_AREA.sub(area, page)
