// The course home's progress list and the "Exportar respostas" button (the CLI's input format).
import * as storage from "./storage.js";

export const EXERCISES = ["quiz-sobrescrita", "nivel-1", "nivel-2"];
const EXPORT_FORMAT = "checkpoints-licao-2/respostas";
// Version 2 added `revealed`: the criteria whose answer the student chose to see.
const EXPORT_VERSION = 2;

function stateOf(record) {
  if (record?.passed === true) return ["concluido", "concluído"];
  if (record) return ["andamento", "em andamento"];
  return ["nao-iniciado", "não iniciado"];
}

export function mountProgress(root = document) {
  for (const item of root.querySelectorAll(".course-progress li[data-exercise]")) {
    const { record, problem } = storage.peek(item.dataset.exercise);
    const [state, text] = problem ? ["ilegivel", "registro salvo ilegível: abra o exercício"] : stateOf(record);
    item.dataset.state = state;
    item.querySelector(".course-progress__state").textContent = text;
  }
}

export function exportAnswers() {
  // Widgets save what is still waiting in their debounce (synchronously) before the file is made.
  document.dispatchEvent(new Event("lesson:flush"));
  const exercises = {};
  for (const [id, record] of Object.entries(storage.peekAll(EXERCISES))) {
    if (!record) continue;
    exercises[id] = {
      answers: record.answers ?? {},
      ...(record.code != null ? { code: record.code } : {}),
      ...(record.texts && Object.keys(record.texts).length ? { texts: record.texts } : {}),
      ...(Array.isArray(record.revealed) && record.revealed.length ? { revealed: record.revealed } : {}),
    };
  }
  const doc = { format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: new Date().toISOString(), exercises };
  const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: "application/json" }));
  const link = Object.assign(document.createElement("a"), { href: url, download: "respostas-licao-2.json" });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return doc;
}

export function mountExport(root = document) {
  for (const host of root.querySelectorAll(".lesson-export:not([data-mounted])")) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "md-button";
    button.textContent = "Exportar respostas";
    button.addEventListener("click", exportAnswers);
    host.replaceChildren(button, " ", Object.assign(document.createElement("span"), {
      textContent: "Baixa um arquivo .json com seu código e suas respostas, para entregar ao instrutor.",
    }));
    host.dataset.mounted = "true";
  }
}
