// Crash timeline: every crash state of a graded run on one axis, grouped by part of the loop
// (A1, ferramenta 1, B1…), each a mark coloured by its outcome with the process killed; selecting one
// shows what a resumed process would find on disk beside what the protocol expected, and what a power
// loss could leave there (advice unless the exercise grades it). The data is the judge's own
// (graders/judge/timeline.py). Self-contained: the instructor's HTML report inlines this file.

const OUTCOME = { ok: "ok", falhou: "falhou" };

function node(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "class") element.className = value;
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (value !== false && value != null) element.setAttribute(name, value === true ? "" : value);
  }
  element.append(...children.filter((c) => c != null));
  return element;
}

/** Code in `backticks` as <code>, the rest as text. */
function rich(text) {
  const fragment = document.createDocumentFragment();
  String(text || "").split("`").forEach((part, i) => fragment.append(i % 2 ? node("code", {}, part) : part));
  return fragment;
}

/** "1 byte", "850 bytes"; "1 deixou", "2 deixaram": real plurals, never "byte(s)". */
function bytes(n) {
  return n === 1 ? "1 byte" : `${n} bytes`;
}

function left(n) {
  return n === 1 ? "1 deixou" : `${n} deixaram`;
}

function pointName(point, total) {
  return `Queda ${point.n} de ${total}`;
}

/**
 * A JSON text that may stop anywhere (a torn file), laid out as json.dumps(indent=2) would: what a cut
 * file holds, in the same form as a complete one beside it. Characters are kept; only layout changes.
 */
export function indentJson(text) {
  let out = "";
  let depth = 0;
  let inString = false;
  let escaped = false;
  const newline = () => "\n" + "  ".repeat(depth);
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      out += c;
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      const next = text.slice(i + 1).trimStart()[0];
      if (next === close) {
        out += c + close; // an empty {} or [] stays on its line
        i = text.indexOf(close, i + 1);
        continue;
      }
      depth += 1;
      out += c + newline();
    } else if (c === "}" || c === "]") {
      depth = Math.max(0, depth - 1);
      out += newline() + c;
    } else if (c === ",") {
      out += c + newline();
    } else if (c === ":") {
      out += ": ";
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}

/** A file written on one line (json.dump without indent) is laid out like the indented JSON beside it. */
function laidOut(text) {
  return text.includes("\n") ? text : indentJson(text).trimEnd();
}

/**
 * A file's text into `pre`, a block per line: a line too long for the pane continues under its own
 * first character (as in the editor), so the JSON's nesting still reads in a narrow pane.
 */
function fillLines(pre, text) {
  pre.replaceChildren(...text.split("\n").map((line) => {
    const span = node("span", { class: "crash-timeline__line" }, line);
    const indent = line.length - line.trimStart().length;
    if (indent) span.style.setProperty("--hang", `${indent}ch`);
    return span;
  }));
}

function diskText(disk, path) {
  if (!disk.exists) return `(não havia nenhum ${path} em disco)`;
  if (disk.json != null) return disk.json + (disk.cut ? "\n… [cortado]" : "");
  if (!disk.bytes) return "(arquivo vazio: 0 bytes)";
  return laidOut(disk.text) + (disk.cut ? "… [cortado]" : "");
}

function diskNote(disk) {
  if (!disk.exists) return "Arquivo ausente.";
  if (disk.json != null) return `JSON completo (${bytes(disk.bytes)}), abre na retomada:`;
  const relaid = disk.text.includes("\n") ? "" : " (em linhas, para comparar; o conteúdo é o mesmo)";
  // The judge names where a resume fails: json.loads, or the reading of the bytes as UTF-8 text.
  const fails = disk.fails ? `na retomada, ${disk.fails}` : "a retomada falharia ao carregá-lo";
  return `Não é um JSON completo (${bytes(disk.bytes)}): ${fails}. O que ficou, até onde o arquivo acaba${relaid}:`;
}

function expectedText(point, timeline) {
  const path = timeline.path;
  if (point.expected_json != null) return timeline.expectations[point.expected_json];
  return `(nenhum ${path} completo ainda: a retomada começa do zero)`;
}

/**
 * Render `timeline` into `host`; returns {select(i), selected(), show(n)} (`show` selects the point
 * numbered n, "Queda n de N", and says whether it is listed).
 * `prefix` keeps ids unique when several timelines share a page; `initial`, the number of the point
 * to select first (the one a message cites), else the first that failed.
 */
export function renderTimeline(host, timeline, { prefix = "linha", initial = null } = {}) {
  const points = timeline.points || [];
  const total = timeline.total || points.length; // a long run lists only some of its points
  const listed = points.length;
  const failed = points.filter((p) => p.outcome === "falhou").length;
  const marks = [];
  const live = node("p", { class: "crash-timeline__live", "aria-live": "polite" });
  const where = node("p", { class: "crash-timeline__where" });
  const message = node("p", { class: "crash-timeline__message" });
  const found = node("pre", { class: "crash-timeline__disk", tabindex: "0" });
  const foundNote = node("p", { class: "crash-timeline__note" });
  const expected = node("p", { class: "crash-timeline__note crash-timeline__expected" });
  const expectedDisk = node("pre", { class: "crash-timeline__disk crash-timeline__disk--expected", tabindex: "0" });
  const powerWhere = node("p", { class: "crash-timeline__power-where" });
  const powerNote = node("p", { class: "crash-timeline__note" });
  const powerFound = node("pre", { class: "crash-timeline__disk", tabindex: "0" });
  const powerBox = node("section", { class: "crash-timeline__power" },
    node("p", { class: "crash-timeline__heading" }, "Numa falta de energia"), powerWhere, powerNote, powerFound);
  const graded = timeline.power_loss === "graded";
  let current = -1;

  function select(index, { focus = false } = {}) {
    if (index < 0 || index >= listed) return;
    if (current >= 0) {
      marks[current].setAttribute("aria-checked", "false");
      marks[current].tabIndex = -1;
    }
    current = index;
    const mark = marks[index];
    mark.setAttribute("aria-checked", "true");
    mark.tabIndex = 0;
    if (focus) mark.focus();
    const point = points[index];
    const disk = timeline.disks[point.disk];
    const outcome = OUTCOME[point.outcome] || point.outcome;
    where.replaceChildren(node("strong", {}, pointName(point, total)), ` · ${point.group} · ${point.where} · `,
      node("span", { class: "crash-timeline__badge", "data-outcome": point.outcome }, outcome));
    message.replaceChildren(rich(point.message || "Nada de errado neste ponto: a retomada encontraria o que o protocolo espera."));
    foundNote.textContent = diskNote(disk);
    fillLines(found, diskText(disk, timeline.path));
    found.dataset.torn = String(disk.exists && disk.json == null);
    expected.replaceChildren(rich(point.expected));
    // Older data (a report made before `expected_json`) has the prose only.
    expectedDisk.hidden = !("expected_json" in point && Array.isArray(timeline.expectations));
    fillLines(expectedDisk, expectedText(point, timeline));
    const power = point.power;
    powerBox.hidden = !power;
    if (power) {
      const powerDisk = timeline.disks[power.disk];
      // Under a crash that already fails, a power loss that adds nothing is the same failure, not "ok".
      const same = power.outcome !== "falhou" && point.outcome === "falhou";
      const badge = power.outcome === "falhou" ? (graded ? "falhou" : "aviso") : same ? "falhou" : "ok";
      const text = same
        ? "Uma falta de energia aqui deixaria o mesmo que o processo morto: o mesmo problema descrito acima."
        : power.message || "A falta de energia deixaria o mesmo que o processo morto: nada a temer aqui.";
      powerWhere.replaceChildren(
        node("span", { class: "crash-timeline__badge", "data-outcome": badge }, badge), " ", rich(text));
      powerNote.textContent = power.outcome === "falhou" ? diskNote(powerDisk) : "";
      powerFound.hidden = power.outcome !== "falhou";
      fillLines(powerFound, power.outcome === "falhou" ? diskText(powerDisk, timeline.path) : "");
    }
    live.textContent = `${pointName(point, total)}: ${outcome}, ${point.where}.`;
  }

  function onKey(event) {
    const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    let next = null;
    if (event.key in moves) next = current + moves[event.key];
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = listed - 1;
    if (next == null) return;
    event.preventDefault();
    select(Math.max(0, Math.min(listed - 1, next)), { focus: true });
  }

  const axis = node("div", {
    class: "crash-timeline__axis", role: "radiogroup", "aria-label": `Quedas simuladas (${total})`,
    onkeydown: onKey,
  });
  for (const group of timeline.groups || []) {
    const box = node("div", { class: "crash-timeline__group", "data-group": group },
      node("span", { class: "crash-timeline__group-label", "aria-hidden": "true" }, group));
    points.forEach((point, index) => {
      if (point.group !== group) return;
      const outcome = OUTCOME[point.outcome] || point.outcome;
      const mark = node("button", {
        type: "button", role: "radio", class: "crash-timeline__mark", "data-outcome": point.outcome,
        "data-power": point.power && point.power.outcome === "falhou" ? "falhou" : null,
        "data-n": point.n, "aria-checked": "false", tabindex: "-1",
        "aria-label": `${pointName(point, total)}, ${group}: ${point.where} — ${outcome}`,
        title: `${pointName(point, total)}: ${point.where} — ${outcome}`,
        onclick: () => select(index, { focus: true }),
      }, point.outcome === "falhou" ? "✗" : "✓");
      marks[index] = mark;
      box.append(mark);
    });
    axis.append(box);
  }

  const powerText = (point) => !point.power ? "—" : point.power.outcome === "falhou" ? (graded ? "falhou" : "aviso") : "ok";
  // The outcome comes right after the number: on a phone it is on screen without swiping the table.
  const rows = points.map((point, index) => node("tr", { "data-outcome": point.outcome },
    node("td", {}, String(point.n)),
    node("td", {}, node("button", {
      type: "button", class: "crash-timeline__show", "data-outcome": point.outcome,
      "aria-label": `${OUTCOME[point.outcome] || point.outcome}: mostrar a queda ${point.n} acima`,
      onclick: () => select(index, { focus: true }),
    }, OUTCOME[point.outcome] || point.outcome)),
    // On a phone the part of the loop goes into the moment's cell (its own column is left out there).
    node("td", {}, powerText(point)), node("td", {}, point.group),
    node("td", {}, node("span", { class: "crash-timeline__row-group" }, `${point.group} · `), point.where),
  ));
  const powerFailed = points.filter((p) => p.power && p.power.outcome === "falhou").length;
  const table = node("details", { class: "crash-timeline__table" },
    node("summary", {}, "Ver todas as quedas numa tabela"),
    node("table", { class: "crash-timeline__rows" },
      node("caption", {}, `Quedas simuladas: ${total}, das quais ${left(failed)} o disco errado`),
      node("thead", {}, node("tr", {}, node("th", { scope: "col" }, "#"), node("th", { scope: "col" }, "Processo morto"),
        node("th", { scope: "col" }, "Falta de energia"), node("th", { scope: "col" }, "Parte do loop"),
        node("th", { scope: "col" }, "Momento da queda"))),
      node("tbody", {}, ...rows)));

  const legend = `Cada marca é um momento em que o processo poderia morrer (${total} no total` +
    (listed < total ? `, ${listed} mostrados` : "") + `; ${failed === 1 ? "1 deixaria" : `${failed} deixariam`} o disco errado). ` +
    groupNames(timeline.groups || []) +
    (powerFailed ? `Numa falta de energia, ${powerFailed} ${powerFailed === 1 ? "deles deixaria" : "deles deixariam"} o disco errado (marcas com ponto; ${graded ? "conta na nota" : "conselho, não conta na nota"}). ` : "") +
    "Selecione uma marca (ou use as setas) para ver o que a retomada encontraria.";
  host.replaceChildren(
    node("p", { class: "crash-timeline__intro", id: `${prefix}-intro` }, legend),
    axis, live,
    node("div", { class: "crash-timeline__detail" }, where, message,
      node("div", { class: "crash-timeline__columns" },
        node("section", {}, node("p", { class: "crash-timeline__heading" }, `O que a retomada encontraria em ${timeline.path}`), foundNote, found),
        node("section", {}, node("p", { class: "crash-timeline__heading" }, "O que o protocolo esperava ali"), expected, expectedDisk)),
      powerBox),
    table);
  axis.setAttribute("aria-describedby", `${prefix}-intro`);
  const cited = initial == null ? -1 : points.findIndex((p) => p.n === initial);
  const first = points.findIndex((p) => p.outcome === "falhou");
  if (listed) select(cited >= 0 ? cited : first >= 0 ? first : 0);
  const show = (n) => {
    const i = points.findIndex((p) => p.n === n);
    if (i >= 0) select(i);
    return i >= 0;
  };
  return { select, selected: () => points[current], show };
}

// What the names of the timeline's parts mean, for the parts this timeline has (a legend that
// explains A1 to a student whose code never saved at point A describes a timeline they do not see).
const GROUP_NAMES = [
  [/^A\d/, "A1 é depois que o modelo pede a 1ª ferramenta, antes de ela rodar"],
  [/^ferramenta \d/, "“ferramenta 1”, enquanto a 1ª ferramenta roda"],
  [/^B\d/, "B1, depois que a 1ª ferramenta rodou"],
  [/^modelo \d/, "“modelo 2”, durante a 2ª chamada ao modelo"],
];
function groupNames(groups) {
  const said = GROUP_NAMES.filter(([pattern]) => groups.some((g) => pattern.test(g))).map(([, text]) => text);
  if (!said.length) return "";
  const text = said.join("; ");
  return text.charAt(0).toUpperCase() + text.slice(1) + ". ";
}
