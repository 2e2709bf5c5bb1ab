"""The `exercise` fence, which renders an exercise from `exercises/<id>/`.

A page embeds an exercise with a fence whose body is the exercise id:

    ```exercise
    nivel-2
    ```

The statement lives in the page; the criteria (and the quiz options) are read
from `exercises/<id>/exercise.toml`, so they are written once. The HTML is
complete and accessible without JavaScript; the widget enhances it in place.

A plain SuperFences custom fence: `mkdocs.yml` names `format_exercise` by its import
path, so MkDocs and Zensical both load it (neither needs a hook). It imports nothing
from either builder. A malformed block raises `SuperFencesException`, which fails the
build in both (a validator returning False would only render inline code).
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from pathlib import Path

import markdown
from pymdownx.superfences import SuperFencesException

from sitebuild.editor_placeholder import placeholder_html

EXERCISES_DIR = Path(__file__).resolve().parents[1] / "exercises"
EXERCISE_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
PENDING = "pendente"
# The editor's help line, as widget.js writes it under the live editor.
EDITOR_HELP = ("Tab indenta e Shift+Tab desfaz a indentação; para sair do editor pelo teclado, aperte Esc e depois Tab. "
               "Ctrl+Enter verifica.")


def load_exercise(exercise_id: str) -> dict:
    """Read and sanity-check `exercises/<id>/exercise.toml`."""
    if not EXERCISE_ID.match(exercise_id):
        raise SuperFencesException(f"Bloco `exercise` com id inválido: {exercise_id!r}.")
    path = EXERCISES_DIR / exercise_id / "exercise.toml"
    if not path.is_file():
        raise SuperFencesException(f"Exercício desconhecido {exercise_id!r}: falta {path}.")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SuperFencesException(f"{path}: TOML inválido ({exc}).") from exc
    criteria = data.get("criteria") or []
    ids = [c.get("id") for c in criteria]
    if not criteria or not all(ids) or len(set(ids)) != len(ids):
        raise SuperFencesException(f"{path}: cada critério precisa de um `id` único.")
    if not all(c.get("title") and c.get("label") for c in criteria):
        raise SuperFencesException(f"{path}: cada critério precisa de `title` (neutro, mostrado antes) e `label`.")
    for q in data.get("questions", []):
        correct = sum(bool(o.get("correct")) for o in q.get("options", []))
        if q.get("criterion") not in ids or correct < 1 or (q.get("type") != "multiple" and correct != 1):
            raise SuperFencesException(f"{path}: a pergunta {q.get('id')!r} está malformada.")
    return data


def _inline(text: str) -> str:
    """Render one line of Markdown (code spans, emphasis) without the wrapping <p>."""
    rendered = markdown.markdown(text.strip())
    return re.sub(r"^<p>(.*)</p>$", r"\1", rendered, flags=re.S)


def _criteria_html(exercise_id: str, criteria: list[dict]) -> str:
    items = "".join(
        f'<li class="exercise-criterion" data-criterion="{html.escape(c["id"])}" data-state="{PENDING}">'
        f'<span class="exercise-criterion__state">{PENDING}</span> '
        f'<span class="exercise-criterion__label">{_inline(c["title"])}</span></li>'
        for c in criteria
    )
    return (
        # The verdict's summary, empty and one line high until the first Verificar (widget.js fills
        # it): built here so that nothing under it moves when the widget mounts or the verdict comes.
        '<p class="exercise-summary" role="status" aria-live="polite"></p>'
        f'<p class="exercise-criteria__title" id="criterios-{exercise_id}">'
        "<strong>Critérios de conclusão</strong> · verificados no seu navegador</p>"
        f'<ol class="exercise-criteria" aria-labelledby="criterios-{exercise_id}">{items}</ol>'
    )


def _questions_html(exercise_id: str, questions: list[dict]) -> str:
    """Each structured question as a real fieldset of radio buttons or checkboxes."""
    blocks = []
    for q in questions:
        kind = "checkbox" if q.get("type") == "multiple" else "radio"
        name = f"{exercise_id}--{q['id']}"
        options = "".join(
            f'<li><label><input type="{kind}" name="{html.escape(name)}" value="{html.escape(o["id"])}"> '
            f"{_inline(o['text'])}</label></li>"
            for o in q["options"]
        )
        blocks.append(
            f'<fieldset class="exercise-question" data-question="{html.escape(q["id"])}" '
            f'data-criterion="{html.escape(q["criterion"])}">'
            f"<legend>{_inline(q['prompt'])}</legend>"
            f'<ul class="exercise-question__options">{options}</ul></fieldset>'
        )
    return "".join(blocks)


def _writings_html(exercise_id: str, writings: list[dict]) -> str:
    """Boxes for the student's own words (not graded). A box tied to an option is shown by the
    widget only while that option is ticked, so it is built hidden (nothing shrinks when the widget
    mounts); without JavaScript every box is there."""
    if not writings:
        return ""
    tied = any(w.get("option") for w in writings)
    intro = (
        "Para cada campo que você marcou como faltante, diga em suas palavras onde a retomada desmorona sem ele, "
        "antes de responder às perguntas de efeito."
        if tied else "Primeiro, explique em suas palavras, antes das alternativas. Isto não entra na nota: "
        "depois de verificar, você compara o que escreveu com uma explicação de referência."
    )
    boxes = []
    for w in writings:
        ident = f"texto-{exercise_id}-{w['id']}"
        tie = (f' data-question="{html.escape(w["question"])}" data-option="{html.escape(w["option"])}" hidden'
               if w.get("option") else "")
        boxes.append(
            f'<div class="exercise-writing" data-writing="{html.escape(w["id"])}"{tie}>'
            f'<label for="{ident}">{_inline(w["prompt"])}</label>'
            f'<textarea id="{ident}" name="{ident}" rows="3" spellcheck="true"></textarea></div>'
        )
    if tied:
        boxes.append("<noscript><style>.exercise-writing[data-option][hidden] { display: block; }</style></noscript>")
    return f'<div class="exercise-writings"><p class="exercise-writings__intro">{intro}</p>{"".join(boxes)}</div>'


def _body_html(exercise_id: str, data: dict) -> str:
    """Questions and writing boxes, explanation first (the lesson's first objective asks students to
    explain): boxes tied to an option come right after the question that shows them, before the
    other questions; free boxes come before every question."""
    questions, writings = data.get("questions", []), data.get("writings", [])
    boxes = _writings_html(exercise_id, writings)
    anchor = next((w["question"] for w in writings if w.get("option")), None)
    if anchor is None:
        return boxes + _questions_html(exercise_id, questions)
    at = next(i for i, q in enumerate(questions) if q["id"] == anchor) + 1
    return _questions_html(exercise_id, questions[:at]) + boxes + _questions_html(exercise_id, questions[at:])


def _widget_data(exercise_id: str, data: dict) -> str:
    """What the widget needs that is not already in the HTML, as an attribute holding JSON.

    Not a <script type="application/json">: instant navigation re-runs the scripts of a
    new page as JavaScript, whatever their type.
    """
    payload = {"id": exercise_id, "title": data["title"], "starter": None,
               "feedbackAfterQuestions": bool(data.get("feedback_after_questions"))}
    if data.get("starter"):
        payload["starter"] = (EXERCISES_DIR / exercise_id / data["starter"]).read_text(encoding="utf-8")
    return f'data-widget="{html.escape(json.dumps(payload, ensure_ascii=False), quote=True)}"'


def _editor_html(exercise_id: str, data: dict) -> str:
    """The editor in its final look (the widget swaps in the live one); without JavaScript, a note."""
    if not data.get("starter"):
        return ""
    starter = (EXERCISES_DIR / exercise_id / data["starter"]).read_text(encoding="utf-8")
    return (
        '<div class="exercise-editor">'
        '<noscript><p class="exercise-noscript">Para editar, executar e verificar o código aqui, ative o JavaScript. '
        "O código inicial está logo acima.</p><style>.exercise-editor__static, .exercise-toolbar--static "
        "{ display: none; }</style></noscript>"
        f"{placeholder_html(starter)}<p class=\"exercise-editor__help\">{EDITOR_HELP}</p></div>"
    )


def _toolbar_html(data: dict) -> str:
    """The widget's buttons, disabled, where it puts them: the criteria do not move when it mounts."""
    names = ("Executar", "Verificar", "Reiniciar", "Baixar .py") if data.get("starter") else ("Verificar",)
    buttons = "".join(
        f'<button type="button" class="md-button{" md-button--primary" if name == "Verificar" else ""}" disabled>{name}</button>'
        for name in names)
    return f'<div class="exercise-toolbar exercise-toolbar--static" aria-hidden="true">{buttons}<span class="exercise-status"></span></div>'


def format_exercise(src, language, class_name, options, md, **kwargs):
    """SuperFences formatter: the fence body is the exercise id."""
    exercise_id = src.strip()
    data = load_exercise(exercise_id)
    body = _body_html(exercise_id, data)
    return (
        f'<section class="exercise" data-exercise="{exercise_id}" data-kind="{html.escape(data.get("kind", ""))}" '
        f'aria-label="Exercício: {html.escape(data["title"])}" {_widget_data(exercise_id, data)}>'
        f"{body}{_editor_html(exercise_id, data)}{_toolbar_html(data)}"
        f"{_criteria_html(exercise_id, data['criteria'])}</section>"
    )
