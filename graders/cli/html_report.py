"""The instructor's one-file HTML report (`--format html`): the class at a glance, then each submission.

Self-contained: inline CSS, inline JavaScript (the page's own timeline.js) and data; nothing
from another origin. Every string a submission could influence is HTML-escaped; the data for
the timelines travels as JSON inside a <script type="application/json">, with `<` escaped.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from .. import exercises
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
:root { color-scheme: light dark; --ok: #2e7d32; --failed: #c62828; --fg: #1b1b1b; --bg: #fff; --line: #ccc; --soft: #f3f3f3; }
@media (prefers-color-scheme: dark) {
  :root { --ok: #81c784; --failed: #ef9a9a; --fg: #e6e6e6; --bg: #1e1f24; --line: #555; --soft: #2a2b31; }
}
body { font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; max-width: 72rem; padding: 1rem; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.bars { list-style: none; padding: 0; max-width: 40rem; }
.bars li { display: grid; grid-template-columns: 12rem 1fr 5.5rem; gap: .5rem; align-items: center; margin: .3rem 0; }
.bar { height: .9rem; background: var(--soft); border: 1px solid var(--line); border-radius: .2rem; overflow: hidden; }
.bar span { display: block; height: 100%; background: var(--ok); }
.controls { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; margin: 1rem 0; }
table { border-collapse: collapse; width: 100%; }
.submissions { display: block; overflow-x: auto; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
th button { font: inherit; font-weight: 700; background: none; border: 0; color: inherit; cursor: pointer; padding: 0; }
td[data-state="ok"] { color: var(--ok); font-weight: 700; }
td[data-state="falhou"], td[data-state="erro"] { color: var(--failed); font-weight: 700; }
.file { word-break: break-all; }
details.submission { border: 1px solid var(--line); border-radius: .3rem; padding: .4rem .8rem; margin: .6rem 0; }
details.submission > summary { cursor: pointer; font-weight: 700; word-break: break-all; }
.message { white-space: pre-wrap; }
pre { white-space: pre-wrap; word-break: break-all; background: var(--soft); padding: .5rem; max-height: 18rem; overflow: auto; }
:focus-visible { outline: 3px solid #3f51b5; outline-offset: 2px; }
[hidden] { display: none !important; }
"""

GLUE = """
const data = JSON.parse(document.getElementById("dados-linhas").textContent);
for (const host of document.querySelectorAll("[data-timeline]")) {
  const timeline = data[host.dataset.timeline];
  if (timeline) renderTimeline(host, timeline, { prefix: "linha-" + host.dataset.timeline });
}
const rows = [...document.querySelectorAll("tbody tr[data-file]")];
const search = document.getElementById("filtro");
const status = document.getElementById("situacao");
const count = document.getElementById("contagem");
function applyFilter() {
  const text = search.value.trim().toLowerCase();
  let shown = 0;
  for (const row of rows) {
    const visible = row.dataset.file.toLowerCase().includes(text) && (status.value === "todas" || row.dataset.status === status.value);
    row.hidden = !visible;
    if (visible) shown += 1;
  }
  count.textContent = `${shown} de ${rows.length} ${rows.length === 1 ? "submissão" : "submissões"} na tabela`;
}
search.addEventListener("input", applyFilter);
status.addEventListener("change", applyFilter);
for (const button of document.querySelectorAll("th button[data-key]")) {
  button.addEventListener("click", () => {
    const key = button.dataset.key;
    const th = button.closest("th");
    const ascending = th.getAttribute("aria-sort") !== "ascending";
    for (const other of document.querySelectorAll("th[aria-sort]")) other.removeAttribute("aria-sort");
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    const body = rows[0]?.parentElement;
    rows.sort((a, b) => (a.dataset[key] || "").localeCompare(b.dataset[key] || "", "pt-BR", { numeric: true }) * (ascending ? 1 : -1));
    for (const row of rows) body.append(row);
  });
}
applyFilter();
"""


def _e(value) -> str:
    return html.escape(str(value if value is not None else ""), quote=True)


def _script_json(value) -> str:
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _state(result: dict, cid: str) -> str:
    if "error" in result:
        return "erro"
    criterion = next((c for c in result["criteria"] if c["id"] == cid), None)
    return "" if criterion is None else ("ok" if criterion["passed"] else "falhou")


def _revealed(result: dict) -> set[str]:
    return {c["id"] for c in result.get("criteria", []) if revealed(c)}


def _site_timeline() -> tuple[str, str]:
    """The page's own timeline (script and styles), so the report shows the very same thing."""
    try:
        script = TIMELINE_JS.read_text(encoding="utf-8")
        css = LESSON_CSS.read_text(encoding="utf-8")
    except OSError:
        return "function renderTimeline() {}", ""  # no site sources here: the static tables stay
    start, end = css.find(TIMELINE_CSS_START), css.find(TIMELINE_CSS_END)
    return script, css[start:end] if 0 <= start < end else ""


def render_html(results: list[dict], exercise: str) -> str:
    """`results`: normalised results (graders.cli.report.normalise), one per file, in the batch's order."""
    ids = exercises.criterion_ids(exercise)
    graded = [r for r in results if "error" not in r]
    passed_all = sum(1 for r in graded if r["passed"])
    errors = len(results) - len(graded)
    shown_ids = [cid for cid in ids if any(_state(r, cid) for r in graded)] or ids
    bars = []
    for cid in shown_ids:
        judged = [r for r in graded if _state(r, cid)]
        ok = sum(1 for r in judged if _state(r, cid) == "ok")
        share = round(100 * ok / len(judged)) if judged else 0
        bars.append(
            f'<li data-criterion="{_e(cid)}" data-passed-count="{ok}" data-judged="{len(judged)}">'
            f'<span>{_e(cid)}</span><span class="bar" role="img" aria-label="{share}% passaram">'
            f'<span style="width:{share}%"></span></span><span>{ok} de {len(judged)} ({share}%)</span></li>'
        )
    head = "".join(f'<th scope="col"><button type="button" data-key="c{n}">{_e(cid)}</button></th>' for n, cid in enumerate(shown_ids))
    rows, details, timelines = [], [], {}
    for n, r in enumerate(results):
        status = "erro" if "error" in r else ("aprovada" if r["passed"] else "reprovada")
        cells = []
        data = [f'data-file="{_e(r["file"])}"', f'data-status="{status}"', f'data-situacao="{status}"']
        for k, cid in enumerate(shown_ids):
            state = _state(r, cid)
            shown = f"{state} ({REVEALED})" if cid in _revealed(r) else state
            cells.append(f'<td data-state="{state}"{" data-revealed" if shown != state else ""}>{_e(shown or "—")}</td>')
            data.append(f'data-c{k}="{_e(state)}"')
        anchor = f"submissao-{n + 1}"
        link = f'<a href="#{anchor}">{_e(r["file"])}</a>' if status != "aprovada" else _e(r["file"])
        rows.append(
            f'<tr {" ".join(data)}><td class="file">{link}</td>'
            f'<td data-state="{"ok" if status == "aprovada" else "falhou"}">{_e(status)}</td>{"".join(cells)}</tr>'
        )
        if status == "aprovada":
            continue
        body = []
        if "error" in r:
            body.append(f'<p class="message">{_e(r["error"])}</p>')
        for c in r["criteria"]:
            if not c["passed"]:
                mark = f" ({REVEALED})" if revealed(c) else ""
                body.append(f'<p><strong>{_e(c["id"])}</strong>{_e(mark)}: <span class="message">{_e(c["message"])}</span></p>')
        timeline = r.get("timeline")
        if isinstance(timeline, dict) and isinstance(timeline.get("points"), list) and timeline["points"]:
            key = str(n + 1)
            timelines[key] = timeline
            static = "".join(
                f'<tr data-outcome="{_e(p.get("outcome"))}"><td>{_e(p.get("n"))}</td><td>{_e(p.get("group"))}</td>'
                f'<td>{_e(p.get("where"))}</td><td>{_e(p.get("outcome"))}</td></tr>'
                for p in timeline["points"] if isinstance(p, dict)
            )
            body.append(
                f'<div class="crash-timeline" data-timeline="{key}"><table><caption>Quedas simuladas</caption>'
                f'<thead><tr><th scope="col">#</th><th scope="col">Parte do loop</th><th scope="col">Momento</th>'
                f'<th scope="col">Resultado</th></tr></thead><tbody>{static}</tbody></table></div>'
            )
        details.append(
            f'<details class="submission" id="{anchor}"><summary>{_e(r["file"])} — {_e(status)}</summary>{"".join(body)}</details>'
        )
    timeline_js, timeline_css = _site_timeline()
    title = f"Relatório da turma — {exercise}"
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
<p id="resumo" data-total="{len(results)}" data-passed-all="{passed_all}" data-errors="{errors}">
<strong>{len(results)}</strong> {"submissão" if len(results) == 1 else "submissões"}; <strong>{passed_all}</strong> {"passou" if passed_all == 1 else "passaram"} em todos os critérios;
<strong>{errors}</strong> com erro de entrada.</p>
<h2>Critério por critério</h2>
<ul class="bars">{"".join(bars)}</ul>
<h2>Submissões</h2>
<div class="controls">
<label>Filtrar por nome: <input type="search" id="filtro"></label>
<label>Situação: <select id="situacao"><option value="todas">todas</option><option value="aprovada">aprovadas</option>
<option value="reprovada">reprovadas</option><option value="erro">com erro</option></select></label>
<span id="contagem" role="status" aria-live="polite"></span>
</div>
<table class="submissions"><thead><tr><th scope="col"><button type="button" data-key="file">arquivo</button></th>
<th scope="col"><button type="button" data-key="situacao">situação</button></th>{head}</tr></thead>
<tbody>{"".join(rows)}</tbody></table>
<h2>O que falhou, submissão por submissão</h2>
{"".join(details) or "<p>Nenhuma submissão falhou.</p>"}
</main>
<script type="application/json" id="dados-linhas">{_script_json(timelines)}</script>
<script type="module">
{timeline_js}
{GLUE}
</script>
</body>
</html>
"""
