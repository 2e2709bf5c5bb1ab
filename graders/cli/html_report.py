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

from . import summary as class_summary
from .metadata import header_lines
from .report import REVEALED, revealed

ASSETS = Path(__file__).resolve().parents[2] / "docs" / "assets"
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
const fold = (text) => (text || "").normalize("NFD").replace(/\\p{M}/gu, "").toLocaleLowerCase("pt-BR");
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


def _state(result: dict | None, cid: str) -> str:
    if result is None:
        return ""
    if "error" in result:
        return "erro"
    criterion = next((c for c in result["criteria"] if c["id"] == cid), None)
    return "" if criterion is None else ("ok" if criterion["passed"] else "falhou")


def _revealed(result: dict | None) -> set[str]:
    return {c["id"] for c in (result or {}).get("criteria", []) if revealed(c)}


def _stem(shown: str) -> str:
    return shown.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]


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


STATUS = {"aprovado": "aprovada", "reprovado": "reprovada", "erro": "erro", "não avaliado": "nao-avaliada"}
STATUS_TEXT = {"aprovada": "aprovada", "reprovada": "reprovada", "erro": "erro", "nao-avaliada": "não avaliada"}
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
        items.append(f'<li data-kind="{_e(c["kind"])}"><strong>{_e(c["exercise"])}, {_e(c["kind"])}</strong> '
                     f'({round(100 * c["score"])}%): {names}</li>')
    return ("<p>Grupos de arquivos com código idêntico ou quase idêntico (nomes, comentários e formatação não contam; "
            "o código inicial do exercício também não). Confira lendo o código.</p>"
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


def _exercise_body(result: dict | None, ex: str, key: str, timelines: dict) -> str:
    if result is None:
        return "<p>Este arquivo não traz este exercício.</p>"
    names = class_summary.titles(ex)
    body = []
    if "error" in result:
        label = "Não avaliado — " if result.get("limit") is True else "Erro — "
        body.append(f'<p class="message">{_e(label)}{_md(result["error"])}</p>')
    timeline = result.get("timeline")
    has_timeline = isinstance(timeline, dict) and isinstance(timeline.get("points"), list) and bool(timeline["points"])
    initial = None
    failing = [c for c in result["criteria"] if not c["passed"]]
    for c in failing:
        mark = f" ({REVEALED})" if revealed(c) else ""
        body.append(f'<p><strong title="id: {_e(c["id"])}">{_md(names.get(c["id"], c["id"]))}</strong>{_e(mark)}: '
                    f'<span class="message">{_md(c["message"], key if has_timeline else None)}</span></p>')
        found = _CRASH.search(c["message"] or "")
        if found and initial is None:
            initial = int(found.group(1))
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


def render_html(rows: list[dict], exercise_ids, meta: dict | None = None, summary: dict | None = None,
                copies: list[dict] | None = None) -> str:
    """`rows`: graded rows (graders.cli.summary), in the batch's order. For a quick look, a list of
    normalised results and one exercise id are accepted too."""
    if isinstance(exercise_ids, str):  # (results, exercise): one row per result
        ex = exercise_ids
        rows = [{"file": r["file"], "shown": r.get("shown") or r["file"], "student": r.get("student"),
                 "kind": r.get("kind"), "results": {ex: r}} for r in rows]
        exercise_ids = [ex]
    from .metadata import describe

    meta = meta or describe(True, False, exercise_ids)
    summary = summary or class_summary.summarise(rows, exercise_ids)
    several = len(exercise_ids) > 1
    groups = [(ex, [cid for cid in class_summary.titles(ex)
                    if any(_state(row["results"].get(ex), cid) not in ("", "erro") for row in rows)]
               or list(class_summary.titles(ex))) for ex in exercise_ids]
    passed_all = summary["approved"]
    head_top, head_cells = [], []
    k = 0
    keys = {}
    for ex, ids in groups:
        names = class_summary.titles(ex)
        head_top.append(f'<th scope="colgroup" class="grupo" colspan="{len(ids)}">{_e(ex)}</th>')
        for cid in ids:
            keys[(ex, cid)] = f"c{k}"
            head_cells.append(f'<th scope="col">{_sort_button(f"c{k}", _md(names.get(cid, cid)), f"id: {cid}")}</th>')
            k += 1
    fixed = (f'<th scope="col" data-narrow>{_sort_button("nome", "aluno / arquivo")}</th>'
             f'<th scope="col" data-narrow>{_sort_button("situacao", "situação")}</th>'
             f'<th scope="col" data-narrow>{_sort_button("pontos", "pontos", numeric=True)}</th>')
    if several:
        thead = (f'<tr class="grupos"><td colspan="3"></td>{"".join(head_top)}</tr>'
                 f'<tr>{fixed}{"".join(head_cells)}</tr>')
    else:
        thead = f'<tr>{fixed}{"".join(head_cells)}</tr>'
    table_rows, details, timelines = [], [], {}
    for n, row in enumerate(rows):
        state = STATUS[class_summary.status(row)]
        anchor = f"submissao-{n + 1}"
        total = class_summary.total_score(row)
        points = f"{total['met']} de {total['graded']}" if total else "—"
        student = row.get("student") or ""
        name_text = f"{student} {row['shown']}"
        data = [f'data-file="{_e(row["file"])}"', f'data-nome="{_e(name_text)}"', f'data-status="{state}"',
                f'data-situacao="{state}"', f'data-pontos="{total["fraction"] if total else -1}"',
                f'data-details="{anchor}"']
        cells = []
        for ex, ids in groups:
            result = row["results"].get(ex)
            shown_revealed = _revealed(result)
            for cid in ids:
                st = _state(result, cid)
                text = f"{st} ({REVEALED})" if cid in shown_revealed else st
                label = (f"{ex} — " if several else "") + class_summary.title(ex, cid).replace("`", "")
                cells.append(f'<td data-state="{st}" data-label="{_e(label)}"'
                             f'{" data-revealed" if text != st else ""}>{_e(text or "—")}</td>')
                data.append(f'data-{keys[(ex, cid)]}="{_e(st)}"')
        named = student and student != _stem(row["shown"])  # a .py's name already says who
        who = f"<strong>{_e(student)}</strong><small>{_e(row['shown'])}</small>" if named else _e(row["shown"])
        table_rows.append(
            f'<tr {" ".join(data)}><td class="nome"><a href="#{anchor}">{who}</a></td>'
            f'<td data-state="{"ok" if state == "aprovada" else "falhou"}" data-label="situação">{_e(STATUS_TEXT[state])}</td>'
            f'<td data-label="pontos">{_e(points)}</td>{"".join(cells)}</tr>'
        )
        body = [f'<p>Arquivo: <code class="caminho">{_e(row["shown"])}</code>'
                + (f" · {_e(KIND_TEXT[row['kind']])}" if row.get("kind") in KIND_TEXT else "") + "</p>"]
        if "error" in row:
            body.append(f'<p class="message">Erro — {_md(row["error"])}</p>')
        for ex in exercise_ids:
            if ex not in row["results"] and (several or "error" in row):
                continue
            key = str(n + 1) if not several else f"{n + 1}-{ex}"
            if several:
                body.append(f"<h3>{_e(ex)}</h3>")
            body.append(_exercise_body(row["results"].get(ex), ex, key, timelines))
        title_html = (f"{_e(student)} — " if named else "") + f'<span class="caminho">{_e(row["shown"])}</span>'
        details.append(f'<details class="submission" id="{anchor}"><summary>{title_html} — {_e(STATUS_TEXT[state])}'
                       f' ({_e(points)})</summary>{"".join(body)}</details>')
    timeline_js, timeline_css = _site_timeline()
    title = "Relatório da turma — " + (", ".join(exercise_ids) if exercise_ids else "nenhum exercício")
    facts = header_lines(meta)
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
    total_rows = len(rows)
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
<p id="resumo" data-total="{total_rows}" data-passed-all="{passed_all}" data-errors="{summary["errors"]}" data-not-graded="{summary["not_graded"]}">
<strong>{total_rows}</strong> {"arquivo" if total_rows == 1 else "arquivos"}: <strong>{passed_all}</strong> {"aprovado" if passed_all == 1 else "aprovados"},
<strong>{summary["failed"]}</strong> {"reprovado" if summary["failed"] == 1 else "reprovados"}, <strong>{summary["errors"]}</strong> com erro de entrada{f', <strong>{summary["not_graded"]}</strong> não avaliados (limite do corretor)' if summary["not_graded"] else ""}.</p>
<ul>{"".join(kinds)}</ul>
<h2>Critério por critério</h2>
{_bars(summary, several)}
<h2>Possíveis cópias</h2>
{_copies(copies or [])}
<h2>Submissões</h2>
<div class="controls">
<label>Filtrar por nome: <input type="search" id="filtro"></label>
<label>Situação: <select id="situacao"><option value="todas">todas</option><option value="aprovada">aprovadas</option>
<option value="reprovada">reprovadas</option><option value="erro">com erro</option><option value="nao-avaliada">não avaliadas</option></select></label>
<span id="contagem" role="status" aria-live="polite"></span>
</div>
<div class="table-wrap"><table class="submissions"><thead>{thead}</thead>
<tbody>{"".join(table_rows)}</tbody></table></div>
<h2>Submissão por submissão</h2>
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
