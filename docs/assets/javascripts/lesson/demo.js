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

/** A hexdump, 16 bytes a line: offset, bytes in hex, and the bytes as text (decoded UTF-8; · where not printable). */
export function hexdump(bytes, start = 0) {
  const text = textColumn(bytes);
  const lines = [];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const row = bytes.slice(offset, offset + 16);
    const at = start + offset;
    const hex = row.map((b) => b.toString(16).padStart(2, "0")).join(" ").padEnd(47);
    lines.push(`${at.toString(16).padStart(4, "0")}  ${hex}  ${text.slice(offset, offset + 16).join("")}`);
  }
  return lines.join("\n");
}

function render(result, host) {
  const rows = result.writers.map((w) => node("tr", { "data-writer": w.id },
    node("th", { scope: "row" }, w.name),
    node("td", { class: "torn-demo__count", "data-unreadable": String(w.unreadable) }, `${w.unreadable} de ${w.kills}`),
    node("td", { class: "torn-demo__count", "data-power-unreadable": String(w.power.unreadable) }, `${w.power.unreadable} de ${w.power.kills}`),
    node("td", { class: "torn-demo__count" }, String(w.absent))));
  const table = node("table", { class: "torn-demo__table" },
    node("caption", {}, "Quedas em momentos sorteados, em cada versão de save_checkpoint (quatro gravações seguidas): " +
      "quantas deixaram o checkpoint.json ilegível"),
    node("thead", {}, node("tr", {}, node("th", { scope: "col" }, "Versão"),
      node("th", { scope: "col" }, "Processo morto"), node("th", { scope: "col" }, "Falta de energia"),
      node("th", { scope: "col" }, "Ainda sem checkpoint"))),
    node("tbody", {}, ...rows));
  const parts = [node("div", { class: "torn-demo__table-box" }, table)];
  const torn = result.writers.find((w) => w.example);
  if (torn) {
    parts.push(
      node("p", {}, `Um dos arquivos que a versão “${torn.name}” deixou (o processo morreu ${torn.example.where}): `,
        `${torn.example.size === 1 ? "1 byte" : `${torn.example.size} bytes`}. O fim do arquivo, byte a byte — é onde a escrita foi cortada, e onde json.loads falharia:`),
      node("pre", { class: "torn-demo__bytes", tabindex: "0" },
        (torn.example.start ? "…\n" : "") + hexdump(torn.example.bytes, torn.example.start || 0)));
  }
  host.replaceChildren(...parts);
}

export function mountDemos(root = document) {
  for (const host of root.querySelectorAll(".torn-demo:not([data-mounted])")) {
    host.dataset.mounted = "true";
    host.querySelector(".torn-demo__noscript")?.remove();
    const status = node("p", { class: "torn-demo__status", role: "status", "aria-live": "polite" });
    const result = node("div", { class: "torn-demo__result" });
    const button = node("button", { type: "button", class: "md-button md-button--primary" }, "Derrubar cada versão 30 vezes");
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
    host.append(button, status, result);
  }
}
