// The course home's progress list and the "Exportar respostas" button (the CLI's input format).
import * as storage from "./storage.js";

export const EXERCISES = ["quiz-sobrescrita", "nivel-1", "nivel-2"];
const EXPORT_FORMAT = "checkpoints-licao-2/respostas";
// Version 2 added `revealed`: the criteria whose answer the student chose to see; version 3, the
// student's optional `email` or `matricula`, which the instructor's gradebook (Moodle) matches by.
const EXPORT_VERSION = 3;
// Kept here, beside the name's key in storage.js: one per browser, shared by every export area.
const CONTACT_KEY = "licao-2/aluno-contato";

function loadContact() {
  try {
    return globalThis.localStorage?.getItem(CONTACT_KEY) ?? "";
  } catch {
    return "";
  }
}

function saveContact(value) {
  try {
    if (String(value).trim()) globalThis.localStorage?.setItem(CONTACT_KEY, String(value));
    else globalThis.localStorage?.removeItem(CONTACT_KEY);
  } catch {
    // Storage off (private mode): the field still goes into this page's export.
  }
}

/** {email} when what the student typed has an "@", {matricula} otherwise, {} for nothing. */
export function contactFields(raw = loadContact()) {
  const value = [...String(raw ?? "").trim()].slice(0, storage.STUDENT_MAX).join("").trim();
  if (!value) return {};
  return value.includes("@") ? { email: value } : { matricula: value };
}

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

/** The student's name as exported: trimmed, at most STUDENT_MAX characters ("" for none). Characters
 * are code points, as Python counts them on the CLI's side (an emoji is one, never half of one). */
export function studentName(raw = storage.loadStudent()) {
  return [...String(raw ?? "").trim()].slice(0, storage.STUDENT_MAX).join("").trim();
}

/** "Ana Júlia da Silva" -> "ana-julia-da-silva": lower case, accents dropped, the rest joined by "-". */
export function slug(name) {
  return name.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}

export function exportFileName(name) {
  const tail = slug(name);
  return tail ? `respostas-licao-2-${tail}.json` : "respostas-licao-2.json";
}

/** Written answers for the export: those whose box is hidden (its option unticked) stay only in the record. */
function shownTexts(record) {
  const hidden = new Set(Array.isArray(record.hiddenTexts) ? record.hiddenTexts : []);
  return Object.fromEntries(Object.entries(record.texts ?? {}).filter(([id, text]) => !hidden.has(id) && String(text).trim()));
}

export function exportAnswers() {
  // Widgets save what is still waiting in their debounce (synchronously) before the file is made.
  document.dispatchEvent(new Event("lesson:flush"));
  const exercises = {};
  for (const [id, record] of Object.entries(storage.peekAll(EXERCISES))) {
    if (!record) continue;
    const texts = shownTexts(record);
    exercises[id] = {
      answers: record.answers ?? {},
      ...(record.code != null ? { code: record.code } : {}),
      ...(Object.keys(texts).length ? { texts } : {}),
      ...(Array.isArray(record.revealed) && record.revealed.length ? { revealed: record.revealed } : {}),
    };
  }
  const student = studentName();
  const doc = { format: EXPORT_FORMAT, version: EXPORT_VERSION, ...(student ? { student } : {}),
    ...contactFields(), exportedAt: new Date().toISOString(), exercises };
  const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: "application/json" }));
  const link = Object.assign(document.createElement("a"), { href: url, download: exportFileName(student) });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return doc;
}

// The export areas are built into the page (sitebuild/export_area.py); the script fills the saved
// values in and wires them, so nothing moves when it runs.
const FIELDS = {
  name: { load: () => storage.loadStudent(), save: (value) => storage.saveStudent(value) },
  contact: { load: loadContact, save: saveContact },
};

/** An optional identity field: saved as it is typed, the same in every export area of the site. */
function wireField(input, kind) {
  const field = FIELDS[kind];
  input.value = field.load();
  input.disabled = false;
  input.addEventListener("input", () => {
    field.save(input.value);
    // Other export areas of the page show the same value.
    for (const other of document.querySelectorAll(`.lesson-export__${kind}`)) if (other !== input) other.value = input.value;
  });
}

export function mountExport(root = document) {
  for (const host of root.querySelectorAll(".lesson-export[data-built]:not([data-mounted])")) {
    for (const kind of Object.keys(FIELDS)) {
      const input = host.querySelector(`input.lesson-export__${kind}`);
      if (input) wireField(input, kind);
    }
    const button = host.querySelector("button");
    const done = host.querySelector(".lesson-export__done");
    button?.addEventListener("click", () => {
      const doc = exportAnswers();
      // Said where the student clicked: the file's name, and that it went to the downloads.
      if (done) done.textContent = `Baixado: “${exportFileName(doc.student ?? "")}”, na pasta de downloads. Entregue-o ao professor.`;
    });
    if (button) button.disabled = false;
    host.dataset.mounted = "true";
  }
}
