// The lesson's "mate o processo" demo: three writers, each run once and traced, then killed at random
// moments by replaying the trace (a killed process, and a power loss), in the page's Python worker, on
// demand (graders/demo.py does the work).
import { sharedRuntime } from "./runtime.js";

function node(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "class") element.className = value;
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (value != null) element.setAttribute(name, value);
  }
  element.append(...children.filter((c) => c != null));
  return element;
}

/** Byte length of the UTF-8 sequence `lead` starts (0: not a lead byte). */
function sequenceLength(lead) {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The text column of a hexdump for `bytes` (the whole dump, so a letter may straddle two rows): one
 * entry per byte. A printable ASCII byte is itself; a complete UTF-8 sequence shows its decoded letter
 * at its first byte and nothing at the others (so "ú" reads "ú", not "··"); anything else, "·" (a
 * control byte, or a sequence the cut left unfinished).
 */
function textColumn(bytes) {
  const cells = new Array(bytes.length).fill("·");
  for (let i = 0; i < bytes.length; i += 1) {
    const b = bytes[i];
    if (b >= 32 && b < 127) {
      cells[i] = String.fromCharCode(b);
      continue;
    }
    const length = sequenceLength(b);
    if (!length || i + length > bytes.length) continue;
    let letter;
    try {
      letter = utf8.decode(new Uint8Array(bytes.slice(i, i + length)));
    } catch {
      continue; // not a well-formed sequence: its bytes stay "·"
    }
    if (/\p{C}/u.test(letter)) continue; // invisible or control characters read as "·"
    cells[i] = letter;
    for (let k = 1; k < length; k += 1) cells[i + k] = "";
    i += length - 1;
  }
  return cells;
}

/** A hexdump, `perRow` bytes a line (16 unless the screen is narrow): offset, bytes in hex, and the
 * bytes as text (decoded UTF-8; · where not printable). */
export function hexdump(bytes, start = 0, perRow = 16) {
  const text = textColumn(bytes);
  const lines = [];
  for (let offset = 0; offset < bytes.length; offset += perRow) {
    const row = bytes.slice(offset, offset + perRow);
    const at = start + offset;
    const hex = row.map((b) => b.toString(16).padStart(2, "0")).join(" ").padEnd(3 * perRow - 1);
    lines.push(`${at.toString(16).padStart(4, "0")}  ${hex}  ${text.slice(offset, offset + perRow).join("")}`);
  }
  return lines.join("\n");
}

const ROW_SIZES = [16, 8, 4];

/**
 * The dump of `bytes` in `pre`, with as many bytes a line as fit its width, so the decoded text (the
 * last column, the one the lesson points to) shows without scrolling sideways: 16 on a wide screen,
 * fewer on a phone. Laid out again when the width changes (a phone turned, a window resized).
 */
function fitDump(pre, bytes, start) {
  const lead = start ? "…\n" : "";
  let shown = null;
  let width = null;
  const layout = () => {
    width = pre.clientWidth;
    const style = getComputedStyle(pre);
    const room = width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const probe = node("span", {}, "0".repeat(16));
    pre.append(probe);
    const ch = probe.getBoundingClientRect().width / 16;
    probe.remove();
    const fits = (n) => Math.max(...hexdump(bytes, start, n).split("\n").map((line) => [...line].length)) * ch <= room;
    // Not laid out (hidden): the desktop's 16.
    const perRow = room > 0 && ch > 0 ? (ROW_SIZES.find(fits) ?? ROW_SIZES.at(-1)) : ROW_SIZES[0];
    if (perRow === shown) return;
    shown = perRow;
    pre.dataset.bytesPerRow = String(perRow);
    pre.textContent = lead + hexdump(bytes, start, perRow);
  };
  layout();
  const resized = new ResizeObserver(() => {
    if (!pre.isConnected) resized.disconnect(); // replaced by the next run's dump
    else if (pre.clientWidth !== width) layout();
  });
  resized.observe(pre);
}

function render(result, host) {
  const kills = result.writers[0]?.kills ?? 0;
  // A power loss that leaves the file unreadable is as much a failure as a killed process that does:
  // both columns mark it alike, and the one writer that survives both is marked as the clean row.
  const rows = result.writers.map((w) => {
    const clean = w.unreadable === 0 && w.power.unreadable === 0;
    return node("tr", { "data-writer": w.id, "data-clean": String(clean) },
      node("th", { scope: "row" }, w.name, clean ? node("span", { class: "torn-demo__clean" }, " ✓ sempre legível") : ""),
      node("td", { class: "torn-demo__count", "data-unreadable": String(w.unreadable) }, `${w.unreadable} de ${w.kills}`),
      node("td", { class: "torn-demo__count", "data-power-unreadable": String(w.power.unreadable) }, `${w.power.unreadable} de ${w.power.kills}`),
      node("td", { class: "torn-demo__count", "data-absent": String(w.absent) }, `${w.absent} de ${w.kills}`));
  });
  const table = node("table", { class: "torn-demo__table" },
    node("caption", {},
      `Quedas em momentos sorteados, em cada versão de save_checkpoint (quatro gravações seguidas): quantas deixaram o checkpoint.json ilegível. `,
      node("span", { class: "torn-demo__legend" },
        node("strong", {}, "Processo morto"), `: das ${kills} quedas sorteadas, contadas as que vieram antes de haver checkpoint; só o processo morre, e o que ele já entregou ao sistema operacional fica. `,
        node("strong", {}, "Falta de energia"), ": das quedas sorteadas entre duas operações (uma queda no meio de uma escrita só acontece com o processo morto); a máquina desliga, e só fica o que um os.fsync já levou ao disco. ",
        node("strong", {}, "Ainda sem checkpoint"), `: das mesmas ${kills} quedas, as que vieram antes da primeira gravação e não deixaram arquivo nenhum (a retomada começa do zero, o que é correto).`)),
    node("thead", {}, node("tr", {}, node("th", { scope: "col" }, "Versão"),
      node("th", { scope: "col" }, "Processo morto"), node("th", { scope: "col" }, "Falta de energia"),
      node("th", { scope: "col" }, "Ainda sem checkpoint"))),
    node("tbody", {}, ...rows));
  const parts = [node("div", { class: "torn-demo__table-box" }, table)];
  const torn = result.writers.find((w) => w.example);
  if (torn) {
    const size = torn.example.size === 1 ? "1 byte" : `${torn.example.size} bytes`;
    // "…depois de 521 bytes" already says the size: it is not said twice.
    const sized = torn.example.where.endsWith(`depois de ${size}`) ? "" : ` O arquivo ficou com ${size}.`;
    parts.push(
      node("p", {}, `Um dos arquivos que a versão “${torn.name}” deixou: o processo morreu ${torn.example.where}.${sized} `,
        "O fim do arquivo, byte a byte — é onde a escrita foi cortada, e por que a retomada falharia ao carregá-lo. Em cada linha: a posição no " +
        "arquivo (em hexadecimal), os bytes em hexadecimal e os mesmos bytes como texto (· onde não são texto)."),
      node("pre", { class: "torn-demo__bytes", tabindex: "0" }));
  }
  host.replaceChildren(...parts);
  const pre = host.querySelector(".torn-demo__bytes");
  if (pre) fitDump(pre, torn.example.bytes, torn.example.start || 0);
}

export function mountDemos(root = document) {
  for (const host of root.querySelectorAll(".torn-demo:not([data-mounted])")) {
    host.dataset.mounted = "true";
    // Built into the page (docs/licao-2.md), so nothing moves when this runs: only wired here.
    const status = host.querySelector(".torn-demo__status");
    const result = host.querySelector(".torn-demo__result");
    const button = host.querySelector(".torn-demo__controls button");
    if (!status || !result || !button) continue;
    button.addEventListener("click", async () => {
      const runtime = sharedRuntime();
      button.disabled = true;
      status.textContent = runtime.state === "ready" ? "Simulando a morte do processo…" : "Carregando Python…";
      try {
        const reply = await runtime.call({ action: "demo" });
        render(reply.demo, result);
        status.textContent = "Pronto: veja a tabela abaixo. Cada clique sorteia outros momentos.";
      } catch (error) {
        status.textContent = `A demonstração não rodou (${error.message}). Tente de novo.`;
      } finally {
        button.disabled = false;
        button.focus();
      }
    });
  }
}
