// What the student typed, kept in localStorage under a versioned record per exercise.
// An unknown version (or a broken record) is refused loudly and kept aside, never overwritten.

export const RECORD_VERSION = 1;
const PREFIX = "licao-2/exercicio/";
const ASIDE = "licao-2/guardado-a-parte/";

export function key(exerciseId) {
  return PREFIX + exerciseId;
}

function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage disabled by the browser: the widget still works, without saving
  }
}

/** Read without side effects: {record, raw, problem}, problem saying why raw is unusable. */
export function peek(exerciseId) {
  const raw = storage()?.getItem(key(exerciseId));
  if (raw == null) return { record: null, raw: null, problem: null };
  let record;
  try {
    record = JSON.parse(raw);
  } catch {
    return { record: null, raw, problem: "o registro salvo está corrompido" };
  }
  if (!record || typeof record !== "object" || record.version !== RECORD_VERSION) {
    const version = record && typeof record === "object" ? record.version : undefined;
    return { record: null, raw, problem: `o registro salvo é da versão ${JSON.stringify(version)}, que esta página não conhece` };
  }
  return { record, raw, problem: null };
}

/** {record, problem}: an unusable record is moved aside first (problem then says where). */
export function load(exerciseId) {
  const { record, raw, problem } = peek(exerciseId);
  return problem ? { record: null, problem: setAside(exerciseId, raw, problem) } : { record, problem: null };
}

function setAside(exerciseId, raw, reason) {
  const asideKey = putAside(exerciseId, raw);
  if (!asideKey) return `${reason}; ele continua guardado neste navegador, sem alteração`;
  try {
    storage()?.removeItem(key(exerciseId));
  } catch {
    return `${reason}; ele continua guardado neste navegador, sem alteração`;
  }
  return `${reason}. Ele foi guardado à parte neste navegador, e nada foi apagado`;
}

/** Keep `raw` under a key of its own beside the records; the key, or null when it could not be kept. */
export function putAside(exerciseId, raw) {
  const store = storage();
  if (!store || raw == null) return null;
  // Two asides in one millisecond (two tabs) must not share a key.
  const asideKey = `${ASIDE}${exerciseId}/${new Date().toISOString()}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    store.setItem(asideKey, raw);
    return asideKey;
  } catch {
    return null;
  }
}

/** A record kept aside by putAside (null when it is gone or unreadable). */
export function readAside(asideKey) {
  try {
    const record = JSON.parse(storage()?.getItem(asideKey) ?? "null");
    return record && typeof record === "object" && record.version === RECORD_VERSION ? record : null;
  } catch {
    return null;
  }
}

// What a save could not store (storage blocked or full), per exercise: kept in this page's memory so
// that "Exportar respostas" still carries it; dropped once a save stores it.
const unsaved = new Map();

function holdUnsaved(exerciseId, fields) {
  unsaved.set(exerciseId, { ...(unsaved.get(exerciseId) ?? {}), ...fields });
  return null;
}

/** Merge `fields` into the stored record. Every save numbers the record (`rev`), so a tab can tell
 * whether another tab saved since it last read it. The saved record, or null when it could not be. */
export function save(exerciseId, fields) {
  const store = storage();
  if (!store) return holdUnsaved(exerciseId, fields);
  const previous = load(exerciseId).record ?? {};
  const rev = (Number.isInteger(previous.rev) ? previous.rev : 0) + 1;
  const record = { ...previous, ...(unsaved.get(exerciseId) ?? {}), ...fields, version: RECORD_VERSION, rev,
    updatedAt: new Date().toISOString() };
  for (const [name, value] of Object.entries(record)) if (value === undefined) delete record[name];
  try {
    store.setItem(key(exerciseId), JSON.stringify(record));
    unsaved.delete(exerciseId);
    return record;
  } catch {
    return holdUnsaved(exerciseId, fields);
  }
}

/** Call `changed()` whenever another tab of this browser writes the exercise's record (the
 * `storage` event fires in every other same-origin document, never in the one that wrote). */
export function onOtherTabSave(exerciseId, changed) {
  const listener = (event) => {
    if (event.key === key(exerciseId) || event.key === null) changed();
  };
  globalThis.addEventListener?.("storage", listener);
  return () => globalThis.removeEventListener?.("storage", listener);
}

/** Every exercise's usable record, for the progress view and the export (read only), with what this
 * page could not store laid over it. */
export function peekAll(exerciseIds) {
  return Object.fromEntries(exerciseIds.map((id) => {
    const record = peek(id).record;
    const held = unsaved.get(id);
    return [id, held ? { ...(record ?? {}), ...held, version: RECORD_VERSION } : record];
  }));
}

// The student's name or id (optional, issue 18): one per browser, shared by every exercise's export.
const STUDENT_KEY = "licao-2/aluno";
export const STUDENT_MAX = 120;

/** The name as the student typed it ("" when none was given or storage is off). */
export function loadStudent() {
  try {
    return storage()?.getItem(STUDENT_KEY) ?? "";
  } catch {
    return "";
  }
}

/** Saved as typed (trimmed only on export); an empty name removes the key. False when it could not be saved. */
export function saveStudent(name) {
  const store = storage();
  if (!store) return false;
  try {
    if (String(name).trim()) store.setItem(STUDENT_KEY, String(name));
    else store.removeItem(STUDENT_KEY);
    return true;
  } catch {
    return false;
  }
}
