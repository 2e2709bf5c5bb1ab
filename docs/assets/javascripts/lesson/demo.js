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

/** A hexdump, 16 bytes a line: offset, bytes in hex, and the bytes as text (· where not printable). */
function hexdump(bytes, start = 0) {
  const lines = [];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const row = bytes.slice(offset, offset + 16);
    const at = start + offset;
    const hex = row.map((b) => b.toString(16).padStart(2, "0")).join(" ").padEnd(47);
    const text = row.map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : "·")).join("");
    lines.push(`${at.toString(16).padStart(4, "0")}  ${hex}  ${text}`);
  }
  return lines.join("\n");
}

function render(result, host) {
  const rows = result.writers.map((w) => node("tr", { "data-writer": w.id },
    node("th", { scope: "row" }, w.name),
    node("td", { "data-unreadable": String(w.unreadable) }, `${w.unreadable} de ${w.kills}`),
    node("td", { "data-power-unreadable": String(w.power.unreadable) }, `${w.power.unreadable} de ${w.power.kills}`),
    node("td", {}, String(w.absent))));
  const table = node("table", { class: "torn-demo__table" },
    node("caption", {}, "Quedas em momentos sorteados, em cada versão de save_checkpoint (quatro gravações seguidas): " +
      "quantas deixaram o checkpoint.json ilegível"),
    node("thead", {}, node("tr", {}, node("th", { scope: "col" }, "Versão"),
      node("th", { scope: "col" }, "Processo morto"), node("th", { scope: "col" }, "Falta de energia"),
      node("th", { scope: "col" }, "Ainda sem checkpoint"))),
    node("tbody", {}, ...rows));
  const parts = [table];
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
