"""The instructor's one-file HTML report (`--format html`): the class at a glance, then each submission,
one column group per exercise; usable from 390 px wide, keyboard and screen reader included.

Self-contained: inline CSS, inline JavaScript (the page's own timeline.js) and data; nothing
from another origin. Every string a submission could influence is HTML-escaped; the data for
the timelines travels as JSON inside a <script type="application/json">, with `<` escaped.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import re

from ..report import REVEALED, revealed, rounded
from . import prose

ASSETS = Path(__file__).resolve().parents[3] / "docs" / "assets"
TIMELINE_JS = ASSETS / "javascripts" / "lesson" / "timeline.js"
LESSON_CSS = ASSETS / "stylesheets" / "lesson.css"
TIMELINE_CSS_START = "/* --- crash timeline"
TIMELINE_CSS_END = "/* Theme classes"
# The page's timeline styles read mkdocs-material's variables: here they come from the report's own.
THEME_VARIABLES = """
:root { --md-default-fg-color: var(--fg); --md-default-bg-color: var(--bg); --md-default-fg-color--lightest: var(--line);
        --md-code-bg-color: var(--soft); --md-accent-fg-color: #3f51b5; }
"""
TIMELINE_COLOURS = ".crash-timeline { --crash-ok: var(--ok); --crash-failed: var(--failed); font-size: .9rem; }"

CSS = """
:root { color-scheme: light dark; --ok: #2e7d32; --failed: #c62828; --fg: #1b1b1b; --bg: #fff; --line: #767676; --soft: #f3f3f3; --link: #1a4fb3; }
@media (prefers-color-scheme: dark) {
  :root { --ok: #81c784; --failed: #ef9a9a; --fg: #e6e6e6; --bg: #1e1f24; --line: #8a8a8a; --soft: #2a2b31; --link: #9cc1ff; }
}
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; max-width: 80rem; padding: 1rem;
       overflow-wrap: break-word; hyphens: manual; }
a { color: var(--link); }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; } h3 { font-size: 1rem; margin: 1rem 0 .3rem; }
.meta { font-size: .9rem; margin: 0; padding-left: 1.2rem; }
.alerta { border: 2px solid var(--failed); padding: .4rem .8rem; border-radius: .3rem; }
.inspeciona { border-left: 4px solid var(--failed); padding: .1rem .6rem; }
.inspeciona ul { margin: .2rem 0; }
.nome small.marca-inspeciona { color: var(--failed); font-weight: 700; }
.bars { list-style: none; padding: 0; max-width: 48rem; }
.bars li { display: grid; grid-template-columns: minmax(10rem, 20rem) minmax(4rem, 1fr) 7.5rem; gap: .5rem; align-items: center; margin: .3rem 0; }
.bars li > span:last-child { white-space: nowrap; }
.bar { height: .9rem; background: var(--soft); border: 1px solid var(--line); border-radius: .2rem; overflow: hidden; }
.bar span { display: block; height: 100%; background: var(--ok); }
.controls { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; margin: 1rem 0; }
table { border-collapse: collapse; width: 100%; }
.table-wrap { overflow-x: auto; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
thead th { vertical-align: bottom; }
th.grupo { text-align: center; border-bottom: 2px solid var(--line); white-space: nowrap; }
th button { font: inherit; font-weight: 700; background: none; border: 0; color: inherit; cursor: pointer; padding: 0; text-align: left; }
th button .seta { display: inline-block; min-width: 1em; margin-left: .2em; }
td[data-state="ok"] { color: var(--ok); font-weight: 700; }
td[data-state="falhou"], td[data-state="erro"] { color: var(--failed); font-weight: 700; }
.nome { min-width: 12rem; }
/* The name column stays in view while the table scrolls sideways. */
table.submissions th.fixo, table.submissions td.nome { position: sticky; left: 0; background: var(--bg); z-index: 1;
  box-shadow: 1px 0 0 var(--line); }
th.grupo button.dobra { font-weight: 700; }
td.pontos-ex { font-weight: 700; white-space: nowrap; }
.nome small { display: block; white-space: nowrap; }
details.submission { border: 1px solid var(--line); border-radius: .3rem; padding: .4rem .8rem; margin: .6rem 0; }
details.submission > summary { cursor: pointer; font-weight: 700; }
.message { white-space: pre-wrap; }
.caminho { display: inline-block; max-width: 100%; overflow-wrap: anywhere; }
.queda { font: inherit; color: var(--link); background: none; border: 0; padding: 0; text-decoration: underline; cursor: pointer; }
blockquote.escrita { margin: .2rem 0 .6rem; padding: .3rem .8rem; border-left: 4px solid var(--line); white-space: pre-wrap; background: var(--soft); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); padding: .5rem; max-height: 18rem; overflow: auto; }
code { background: var(--soft); padding: 0 .2em; border-radius: .2em; }
:focus-visible { outline: 3px solid #3f51b5; outline-offset: 2px; }
[hidden] { display: none !important; }
@media (max-width: 40rem) {
  body { padding: .6rem; }
  .bars li { grid-template-columns: 1fr; gap: .1rem; }
  table.submissions thead tr.grupos { display: none; }
  table.submissions thead { display: block; }
  table.submissions thead tr { display: flex; flex-wrap: wrap; gap: .3rem .8rem; }
  table.submissions thead th { border: 0; padding: .1rem 0; }
  table.submissions thead th:not([data-narrow]) { display: none; }
  table.submissions tbody, table.submissions tr, table.submissions td { display: block; width: 100%; }
  table.submissions tbody tr { border: 1px solid var(--line); border-radius: .3rem; margin: .5rem 0; padding: .3rem .5rem; }
  table.submissions td { border: 0; padding: .1rem 0; }
  .nome small { white-space: normal; overflow-wrap: anywhere; }
  table.submissions td[data-label]::before { content: attr(data-label) ": "; font-weight: 400; color: var(--fg); }
  /* A phone card: name, status, points, each exercise's points and only the failed criteria. */
  table.submissions td.nome { position: static; box-shadow: none; }
  table.submissions td.criterio:not([data-state="falhou"]) { display: none; }
  table.submissions td[hidden] { display: none !important; }
}
"""

GLUE = """
const data = JSON.parse(document.getElementById("dados-linhas").textContent);
const handles = {};
for (const host of document.querySelectorAll("div[data-timeline]")) {
  const timeline = data[host.dataset.timeline];
  const initial = host.dataset.initial ? Number(host.dataset.initial) : null;
  if (timeline) handles[host.dataset.timeline] = renderTimeline(host, timeline, { prefix: "linha-" + host.dataset.timeline, initial });
}
// "Queda n de N" in a message selects that very point in the timeline below it.
for (const button of document.querySelectorAll("button.queda")) {
  const handle = handles[button.dataset.linha];
  if (!handle) { button.replaceWith(button.textContent); continue; }
  button.addEventListener("click", () => {
    if (handle.show(Number(button.dataset.n))) {
      document.querySelector(`div[data-timeline="${button.dataset.linha}"] [aria-checked="true"]`)?.focus();
    }
  });
}
function openTarget(id) {
  const target = id && document.getElementById(id);
  if (target && target.tagName === "DETAILS") target.open = true;
}
for (const link of document.querySelectorAll('a[href^="#submissao-"]')) {
  link.addEventListener("click", () => openTarget(link.getAttribute("href").slice(1)));
}
addEventListener("hashchange", () => openTarget(location.hash.slice(1)));
openTarget(location.hash.slice(1));
const rows = [...document.querySelectorAll("tbody tr[data-file]")];
const search = document.getElementById("filtro");
const status = document.getElementById("situacao");
const count = document.getElementById("contagem");
// Accents away, and the letters NFD does not split (ø, ł, æ, ß…) as one types them: "oberg" finds "Øberg".
const LETTERS = { "ø": "o", "ł": "l", "đ": "d", "æ": "ae", "œ": "oe", "ß": "ss", "þ": "th", "ı": "i" };
const fold = (text) => (text || "").normalize("NFD").replace(/\\p{M}/gu, "").toLocaleLowerCase("pt-BR")
  .replace(/[øłđæœßþı]/g, (ch) => LETTERS[ch]);
function applyFilter() {
  const text = fold(search.value.trim());
  let shown = 0;
  for (const row of rows) {
    const visible = fold(row.dataset.nome).includes(text) && (status.value === "todas" || row.dataset.status === status.value);
    row.hidden = !visible;
    const details = document.getElementById(row.dataset.details);
    if (details) details.hidden = !visible;
    if (visible) shown += 1;
  }
  count.textContent = `${shown} de ${rows.length} ${rows.length === 1 ? "submissão" : "submissões"} na tabela`;
}
search.addEventListener("input", applyFilter);
status.addEventListener("change", applyFilter);
const ARROWS = { ascending: "▲", descending: "▼" };
for (const button of document.querySelectorAll("th button[data-key]")) {
  button.addEventListener("click", () => {
    const key = button.dataset.key;
    const th = button.closest("th");
    const ascending = th.getAttribute("aria-sort") !== "ascending";
    for (const other of document.querySelectorAll("th[aria-sort]")) {
      other.removeAttribute("aria-sort");
      other.querySelector(".seta").textContent = "↕";
    }
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    button.querySelector(".seta").textContent = ARROWS[ascending ? "ascending" : "descending"];
    const body = rows[0]?.parentElement;
    // Scores are fractions ("0.125"): compared as text, "0.125" would come after "0.75".
    const order = "numeric" in button.dataset
      ? (a, b) => (parseFloat(a.dataset[key]) || 0) - (parseFloat(b.dataset[key]) || 0)
      : (a, b) => (a.dataset[key] || "").localeCompare(b.dataset[key] || "", "pt-BR", { numeric: true });
    rows.sort((a, b) => order(a, b) * (ascending ? 1 : -1));
    for (const row of rows) body.append(row);
  });
}
// One column group per exercise can be folded away (its points column stays).
for (const button of document.querySelectorAll("th.grupo button.dobra")) {
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") === "true";
    button.setAttribute("aria-expanded", String(!open));
    for (const cell of document.querySelectorAll(`td[data-ex="${button.dataset.ex}"], th[scope="col"][data-ex="${button.dataset.ex}"]`)) {
      cell.hidden = open;
    }
    const th = button.closest("th");
    th.colSpan = open ? 1 : Number(th.dataset.span);
  });
}
applyFilter();
"""


def _e(value) -> str:
    return html.escape(str(value if value is not None else ""), quote=True)


def _script_json(value) -> str:
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_CRASH = re.compile(r"Queda (\d+) de (\d+)")


def _md(text, timeline: str | None = None) -> str:
    """Escaped text with `code` as <code> and, when a timeline is there, each "Queda n de N" as a
    button that selects that point in it (the same numbering as the timeline's)."""
    parts = str(text or "").split("`")
    out = []
    for i, part in enumerate(parts):
        if i % 2 and i < len(parts) - 1:
            out.append(f"<code>{_e(part)}</code>")
            continue
        piece = _e(part if i % 2 == 0 else "`" + part)
        if timeline is not None:
            piece = _CRASH.sub(lambda m: f'<button type="button" class="queda" data-linha="{timeline}" '
                                         f'data-n="{m.group(1)}">{m.group(0)}</button>', piece)
        out.append(piece)
    return "".join(out)


def _sort_button(key: str, label: str, tip: str = "", numeric: bool = False) -> str:
    title = f' title="{_e(tip)}"' if tip else ""
    flag = " data-numeric" if numeric else ""
    return (f'<button type="button" data-key="{_e(key)}"{flag}{title}>{label}'
            '<span class="seta" aria-hidden="true">↕</span></button>')


def _site_timeline() -> tuple[str, str]:
    """The page's own timeline (script and styles), so the report shows the very same thing."""
    try:
        script = TIMELINE_JS.read_text(encoding="utf-8")
        css = LESSON_CSS.read_text(encoding="utf-8")
    except OSError:
        return "function renderTimeline() {}", ""  # no site sources here: the static tables stay
    start, end = css.find(TIMELINE_CSS_START), css.find(TIMELINE_CSS_END)
    return script, css[start:end] if 0 <= start < end else ""


STATUS = {"aprovado": "aprovada", "reprovado": "reprovada", "erro": "erro", "não avaliado": "nao-avaliada",
          "incompleto": "incompleta", "não entregou": "nao-entregue"}
STATUS_TEXT = {"aprovada": "aprovada", "reprovada": "reprovada", "erro": "erro", "nao-avaliada": "não avaliada",
               "incompleta": "incompleta", "nao-entregue": "não entregou"}
KIND_TEXT = {"py": "código (.py)", "export": "respostas (.json)"}


def _bars(summary: dict, several: bool) -> str:
    out = []
    for ex, data in summary["exercises"].items():
        items = []
        for cid, c in data["criteria"].items():
            if not c["judged"] and any(x["judged"] for x in data["criteria"].values()):
                continue
            share = round(100 * c["passed"] / c["judged"]) if c["judged"] else 0
            items.append(
                f'<li data-exercise="{_e(ex)}" data-criterion="{_e(cid)}" data-passed-count="{c["passed"]}" '
                f'data-judged="{c["judged"]}"><span title="id: {_e(cid)}">{_md(c["title"])}</span>'
                f'<span class="bar" role="img" aria-label="{share}% passaram"><span style="width:{share}%"></span></span>'
                f'<span>{c["passed"]} de {c["judged"]} ({share}%)</span></li>')
        heading = f"<h3>{_e(ex)}</h3>" if several else ""
        out.append(f'{heading}<ul class="bars">{"".join(items)}</ul>')
    return "".join(out)


def _copies(copies: list[dict]) -> str:
    if not copies:
        return "<p>Nenhum grupo de código idêntico ou quase idêntico entre arquivos diferentes.</p>"
    items = []
    for c in copies:
        names = ", ".join(f"{_e(m['student'])} ({_e(m['file'])})" if m.get("student") else _e(m["file"]) for m in c["members"])
        items.append(f'<li data-kind="{_e(c["kind"])}"><strong>{_e(c["exercise"])}, {_e(prose.copy_kind(c))}</strong> '
                     f'({round(100 * c["score"])}%): {names}{_e(prose.identical_note(c))}</li>')
    return ("<p>Grupos de arquivos com código idêntico ou quase idêntico (nomes, comentários e formatação não contam; "
            "o código inicial do exercício também não), e os que reproduzem a solução de referência publicada no "
            "site. Confira lendo o código.</p>"
            f'<ul id="copias">{"".join(items)}</ul>')


def _writings(result: dict) -> str:
    items = []
    for w in result.get("writings") or []:
        if not isinstance(w, dict) or not isinstance(w.get("text"), str) or not w["text"].strip():
            continue
        label = w.get("prompt") if isinstance(w.get("prompt"), str) and w.get("prompt") else w.get("id")
        items.append(f'<p><strong title="id: {_e(w.get("id"))}">{_md(label)}</strong></p>'
                     f'<blockquote class="escrita">{_e(w["text"])}</blockquote>')
    if not items:
        return ""
    return "<h4>Respostas escritas (não entram na nota)</h4>" + "".join(items)


def _exercise_body(result: dict, ex: str, key: str, timelines: dict) -> str:
    if result["state"] == "não entregue":
        return "<p>Não entregue.</p>"
    names = {c["id"]: c["title"] for c in result["criteria"]}
    body = []
    if "error" in result:
        label = "Não avaliado — " if result.get("limit") is True else "Erro — "
        body.append(f'<p class="message">{_e(label)}{_md(result["error"])}</p>')
    timeline = result.get("timeline")
    has_timeline = isinstance(timeline, dict) and isinstance(timeline.get("points"), list) and bool(timeline["points"])
    initial = None
    failing = [c for c in result["criteria"] if c["state"] == "falhou"]
    for c in failing:
        mark = f" ({REVEALED})" if revealed(c) else ""
        body.append(f'<p><strong title="id: {_e(c["id"])}">{_md(names.get(c["id"], c["id"]))}</strong>{_e(mark)}: '
                    f'<span class="message">{_md(c["message"], key if has_timeline else None)}</span></p>')
        found = _CRASH.search(c["message"] or "")
        if found and initial is None:
            initial = int(found.group(1))
    only_export = [c["title"] for c in result["criteria"] if c["state"] == "só no arquivo exportado"]
    if only_export:
        body.append(f'<p>Só no arquivo exportado (contam como não cumpridos): {_md(", ".join(only_export))}</p>')
    if "error" not in result and not failing:
        body.append("<p>Passou em todos os critérios corrigidos.</p>")
    if has_timeline:
        timelines[key] = timeline
        static = "".join(
            f'<tr data-outcome="{_e(p.get("outcome"))}"><td>{_e(p.get("n"))}</td><td>{_e(p.get("group"))}</td>'
            f'<td>{_e(p.get("where"))}</td><td>{_e(p.get("outcome"))}</td></tr>'
            for p in timeline["points"] if isinstance(p, dict)
        )
        start = f' data-initial="{initial}"' if initial is not None else ""
        body.append(
            f'<div class="crash-timeline" data-timeline="{_e(key)}"{start}><table><caption>Quedas simuladas</caption>'
            f'<thead><tr><th scope="col">#</th><th scope="col">Parte do loop</th><th scope="col">Momento</th>'
            f'<th scope="col">Resultado</th></tr></thead><tbody>{static}</tbody></table></div>'
        )
    body.append(_writings(result))
    return "".join(body)


def _inspection(row: dict, several: bool) -> str:
    """The signs that this student's code inspects the grader (graders.cli.inspection), one per line."""
    if not row["inspection"]:
        return ""
    items = "".join(f'<li data-origin="{_e(s["origin"])}">' + (f"{_e(s['exercise'])}: " if several else "")
                    + f"{_md(s['text'])}</li>" for s in row["inspection"])
    return (f'<div class="inspeciona" data-inspeciona><p><strong>Inspeciona o corretor</strong> '
            f'(não muda a nota; confira lendo o código):</p><ul>{items}</ul></div>')


def plural_students(n: int) -> str:
    return f"{n} aluno" if n == 1 else f"{n} alunos"


def _ignored(ignored: list[dict]) -> str:
    if not ignored:
        return "<p>Nenhum arquivo ignorado.</p>"
    items = "".join(f"<li><code class=\"caminho\">{_e(i['path'])}</code>: {_e(i['reason'])}</li>" for i in ignored)
    return f'<ul id="ignorados">{items}</ul>'


def _cell_text(c: dict) -> tuple[str, str]:
    """(data-state, text) of a criterion's cell: "—" when it was not graded (with the reason as a title)."""
    if c["state"] in ("ok", "falhou"):
        return c["state"], c["state"] + (f" ({REVEALED})" if revealed(c) else "")
    return "", "—"


def render(report: dict) -> str:
    meta, summary, copies = report["report"], report["summary"], report["possible_copies"]
    students = report["students"]
    exercise_ids = meta["assignment"]
    several = len(exercise_ids) > 1
    columns = {ex: meta["columns"][ex]["criteria"] for ex in exercise_ids}
    passed_all = summary["approved"]
    head_top, head_cells = [], []
    k = 0
    keys = {}
    for ex, names in columns.items():
        span = len(names) + 1
        head_top.append(f'<th scope="colgroup" class="grupo" colspan="{span}" data-span="{span}">'
                        f'<button type="button" class="dobra" data-ex="{_e(ex)}" aria-expanded="true">{_e(ex)}</button></th>')
        head_cells.append(f'<th scope="col">{_sort_button(f"p-{ex}", "pontos", f"pontos em {ex}", numeric=True)}</th>')
        for cid, name in names.items():
            keys[(ex, cid)] = f"c{k}"
            head_cells.append(f'<th scope="col" data-ex="{_e(ex)}">{_sort_button(f"c{k}", _md(name), f"id: {cid}")}</th>')
            k += 1
    fixed = (f'<th scope="col" class="fixo" data-narrow>{_sort_button("nome", "aluno / arquivo")}</th>'
             f'<th scope="col" data-narrow>{_sort_button("situacao", "situação")}</th>'
             f'<th scope="col" data-narrow>{_sort_button("pontos", "nota", numeric=True)}</th>')
    thead = (f'<tr class="grupos"><td colspan="3"></td>{"".join(head_top)}</tr>'
             f'<tr>{fixed}{"".join(head_cells)}</tr>')
    table_rows, details, timelines = [], [], {}
    nota_max = meta["nota_max"]
    for n, row in enumerate(students):
        state = STATUS[row["status"]]
        anchor = f"submissao-{n + 1}"
        total = row["score"]
        grade = "sem nota" if total["grade"] is None else rounded(total["exact"], 1, comma=True)
        points = f"{grade} ({total['met']} de {total['total']})"
        student = row["student"] or ""
        shown = ", ".join(f["shown"] for f in row["files"])
        name_text = f"{student} {shown}"
        data = [f'data-file="{_e(row["file"] or "")}"', f'data-nome="{_e(name_text)}"', f'data-status="{state}"',
                f'data-situacao="{state}"', f'data-pontos="{-1 if total["fraction"] is None else total["fraction"]}"', f'data-details="{anchor}"']
        cells = []
        for ex, names in columns.items():
            result = row["exercises"][ex]
            s = result["score"]
            fraction = s["met"] / s["total"] if s["total"] else 0
            data.append(f'data-p-{_e(ex)}="{round(fraction, 4)}"')
            shown_points = f"{s['met']} de {s['total']}" if result["state"] == "avaliado" else result["state"]
            cells.append(f'<td class="pontos-ex" data-label="{_e(ex)}">{_e(shown_points)}</td>')
            for c in result["criteria"]:
                if c["id"] not in names:
                    continue
                st, text = _cell_text(c)
                label = (f"{ex} — " if several else "") + c["title"].replace("`", "")
                tip = f' title="{_e(c["state"])}"' if not st else ""
                cells.append(f'<td class="criterio" data-ex="{_e(ex)}" data-state="{st}" data-label="{_e(label)}"{tip}'
                             f'{" data-revealed" if revealed(c) else ""}>{_e(text)}</td>')
                data.append(f'data-{keys[(ex, c["id"])]}="{_e(st)}"')
        stem = (row["files"][0]["shown"].replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0] if row["files"] else "")
        named = student and (student != stem or len(row["files"]) > 1)
        label = _e(shown) if shown else "(não entregou)"
        who = f"<strong>{_e(student)}</strong><small>{label}</small>" if named or not shown else label
        mark = ('<small class="marca-inspeciona">inspeciona o corretor</small>' if row["inspection"] else "")
        if row["inspection"]:
            data.append("data-inspeciona")
        table_rows.append(
            f'<tr {" ".join(data)}><td class="nome"><a href="#{anchor}">{who}</a>{mark}</td>'
            f'<td data-state="{"ok" if state == "aprovada" else "falhou"}" data-label="situação">{_e(STATUS_TEXT[state])}</td>'
            f'<td data-label="nota (0 a {prose.decimal(nota_max)})">{_e(points)}</td>{"".join(cells)}</tr>'
        )
        facts = [f'Arquivo{"s" if len(row["files"]) > 1 else ""}: ' + (", ".join(f'<code class="caminho">{_e(f["shown"])}</code>'
                                                                           for f in row["files"]) or "nenhum")]
        if row["kind"] in prose.KIND_TEXT and row["kind"]:
            facts.append(_e(prose.KIND_TEXT[row["kind"]]))
        if row["email"] or row["id_number"]:
            facts.append(_e(" · ".join(x for x in (row["email"], row["id_number"]) if x)))
        if row["roster"] and row["roster"] != "na turma":
            facts.append(f"<strong>{_e(row['roster'])}</strong>")
        if row["identity_note"]:
            facts.append(f"<strong>{_e(row['identity_note'])}</strong>")
        body = ["<p>" + " · ".join(facts) + "</p>", _inspection(row, several)]
        body += [f'<p class="message sem-nota">{_e(line)}</p>' for line in prose.not_graded_lines(row)]
        if "error" in row:
            body.append(f'<p class="message">Erro — {_md(row["error"])}</p>')
        for ex in exercise_ids:
            result = row["exercises"][ex]
            if result["state"] == "não entregue" and not several and "error" in row:
                continue
            key = str(n + 1) if not several else f"{n + 1}-{ex}"
            if several:
                body.append(f"<h3>{_e(ex)}</h3>")
            body.append(_exercise_body(result, ex, key, timelines))
        title_html = (f"{_e(student)} — " if named or not shown else "") + f'<span class="caminho">{label}</span>'
        details.append(f'<details class="submission" id="{anchor}"><summary>{title_html} — {_e(STATUS_TEXT[state])}'
                       f' ({_e(points)})</summary>{"".join(body)}</details>')
    timeline_js, timeline_css = _site_timeline()
    title = "Relatório da turma — " + (", ".join(exercise_ids) if exercise_ids else "nenhum exercício")
    facts = prose.header_lines(meta)
    alert = ""
    if meta.get("interrupted"):
        alert = f'<p class="alerta" id="interrompido" role="alert">{_e(facts.pop())}</p>'
    by_kind = summary["passed_by_kind"]
    kinds = []
    if by_kind["py"]["total"]:
        kinds.append(f'<li data-kind="py">só código (.py, critérios de código): <strong>{by_kind["py"]["passed"]}</strong> '
                     f'de {by_kind["py"]["total"]} passaram em todos</li>')
    if by_kind["export"]["total"]:
        kinds.append(f'<li data-kind="export">respostas exportadas (.json, todos os critérios): '
                     f'<strong>{by_kind["export"]["passed"]}</strong> de {by_kind["export"]["total"]} passaram em todos</li>')
    total_rows = len(students)
    inspecting = (f'<p id="inspecionam" class="inspeciona" data-count="{summary["inspecting"]}">'
                  f'{_e(prose.INSPECTING[0].upper() + prose.INSPECTING[1:])}: '
                  f'{_e(plural_students(summary["inspecting"]))}.</p>\n' if summary["inspecting"] else "")
    summary_text = _e(prose.summary_lines(summary)[0])
    return f"""<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{_e(title)}</title>
<style>{CSS}{THEME_VARIABLES}{timeline_css}{TIMELINE_COLOURS}</style>
</head>
<body>
<main>
<h1>{_e(title)}</h1>
{alert}
<ul class="meta" id="metadados" data-generated="{_e(meta["generated_at"])}" data-isolation="{_e(meta["isolation"])}" data-version="{_e(meta["grader_version"])}">{"".join(f"<li>{_e(line)}</li>" for line in facts)}</ul>
<h2>Resumo da turma</h2>
<p id="resumo" data-total="{total_rows}" data-passed-all="{passed_all}" data-errors="{summary["errors"]}" data-not-graded="{summary["not_graded"]}" data-not-submitted="{summary["not_submitted"]}">{summary_text}.</p>
<ul>{"".join(kinds)}</ul>
{inspecting}<h2>Critério por critério</h2>
{_bars(summary, several)}
<h2>Possíveis cópias</h2>
{_copies(copies or [])}
<h2>Arquivos ignorados</h2>
{_ignored(report["ignored"])}
<h2>Alunos</h2>
<div class="controls">
<label>Filtrar por nome: <input type="search" id="filtro"></label>
<label>Situação: <select id="situacao"><option value="todas">todas</option><option value="aprovada">aprovadas</option>
<option value="reprovada">reprovadas</option><option value="incompleta">incompletas</option><option value="erro">com erro</option><option value="nao-avaliada">não avaliadas</option><option value="nao-entregue">não entregaram</option></select></label>
<span id="contagem" role="status" aria-live="polite"></span>
</div>
<div class="table-wrap"><table class="submissions"><thead>{thead}</thead>
<tbody>{"".join(table_rows)}</tbody></table></div>
<h2>Aluno por aluno</h2>
{"".join(details) or "<p>Nenhuma submissão.</p>"}
</main>
<script type="application/json" id="dados-linhas">{_script_json(timelines)}</script>
<script type="module">
{timeline_js}
{GLUE}
</script>
</body>
</html>
"""
