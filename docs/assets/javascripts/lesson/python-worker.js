// The one Web Worker that runs Python (Pyodide) for every exercise widget.
// Protocol: {id, type: "init", interruptBuffer?, snapshot?} -> {id, ok, result: {snapshot?, fresh | restored}}
//           {id, type: "call", request}                    -> {id, ok, result | error}
// `request`/`result` are JSON strings handled by graders/web.py; nothing else is shared.
// A worker named "restore" waits for the snapshot `init` brings ({blob, key, bundle, module}, made by an
// earlier worker of this page); any other boots at once, from the snapshot IndexedDB keeps
// (snapshot-store.js) when it fits, else from scratch ("plain": never from IndexedDB). A fresh
// boot makes a memory snapshot and hands it to the page; a restore that throws boots from scratch.
import { loadPyodide, version } from "../../../pyodide/pyodide.mjs";
import { installFsTap } from "./fstap.js";
import { readSnapshot, sha256Hex, snapshotKey } from "./snapshot-store.js";

// Reading the stored record takes well under a second (a Blob handle, or 31 MB of bytes).
const READ_TIMEOUT_MS = 5000;
const LESSON_DIR = "/opt/corretor"; // outside the home, which each graded run empties
const BUNDLE_URL = new URL("../../python/lesson.zip", import.meta.url);
const OPTIONS = {
  indexURL: new URL("../../../pyodide/", import.meta.url).href,
  // The graders capture the student's output themselves; the runtime stays quiet.
  stdout: () => {},
  stderr: () => {},
};
// Captured before any Python runs: the graders also keep student code away from `js`.
const post = self.postMessage.bind(self);
let handle = null;
// When each step of this worker's boot ended (ms since the epoch, comparable with the page's
// performance.timeOrigin + now): the init reply carries them, for the benchmark's breakdown.
const timings = { created: performance.timeOrigin };
const mark = (name) => (timings[name] ??= performance.timeOrigin + performance.now());
mark("worker");

// Pyodide may give up starting without rejecting loadPyodide (a .wasm that failed to download, for
// one): that error then surfaces only as an unhandled rejection here, and fails the boot under way.
let abortBoot = () => {};
self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  abortBoot(event.reason instanceof Error ? event.reason : new Error(String(event.reason)));
});

// The compiled runtime (WebAssembly.Module) travels with the snapshot: a restoring worker
// instantiates it instead of compiling pyodide.asm.wasm again. Pyodide compiles through
// instantiateStreaming (emscripten-settings.ts, getInstantiateWasmFunc); both ends wrap it here.
let compiled = null;
const instantiateStreaming = WebAssembly.instantiateStreaming;
WebAssembly.instantiateStreaming = async (source, imports) => {
  if (compiled) {
    Promise.resolve(source).then((response) => response.body?.cancel()).catch(() => {});
    const instance = await WebAssembly.instantiate(compiled, imports);
    mark("wasm");
    return { module: compiled, instance };
  }
  Promise.resolve(source).then(() => mark("wasmResponse"), () => {});
  const result = await instantiateStreaming.call(WebAssembly, source, imports);
  mark("wasm");
  compiled = result.module;
  return result;
};

function load(options) {
  const aborted = new Promise((_, reject) => (abortBoot = reject));
  return Promise.race([loadPyodide({ ...OPTIONS, ...options }), aborted]);
}

/** The graders bundle and its SHA-256 (null without WebCrypto), downloaded while Python boots. */
async function fetchBundle() {
  const response = await fetch(BUNDLE_URL, { cache: "no-cache" });
  if (!response.ok) throw new Error(`não foi possível baixar os corretores (${response.status})`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { bytes, digest: await sha256Hex(bytes).catch(() => null) };
}

/** A fresh Python that can make a snapshot (before any JS module is registered: see init). */
async function bootFresh(bundle) {
  return { pyodide: await load({ _makeSnapshot: true }), bundle: await bundle, made: true };
}

/** Restore `bytes` (a snapshot, or a promise of one); null when Pyodide refuses it (another build,
 * damaged, too big) or the promise rejects. */
async function restore(bytes) {
  try {
    return await load({ _loadSnapshot: bytes });
  } catch {
    return null;
  }
}

/** On a revisit: the stored snapshot when it was made for this Pyodide and these graders and its
 * bytes are intact; otherwise (or when IndexedDB is unavailable) a fresh boot, whose snapshot the
 * page stores in place of the old one. */
async function bootOwn(useStore) {
  const bundle = fetchBundle();
  bundle.then(() => mark("bundle"), () => {}); // reported by init
  const stored = useStore ? await readWithin(READ_TIMEOUT_MS) : null;
  mark("stored");
  if (stored) {
    // Pyodide takes the snapshot as a promise: its runtime loads while the bytes are checked.
    const bytes = checked(stored, bundle);
    bytes.catch(() => {}); // Pyodide's own await reports it (restore then answers null)
    const pyodide = await restore(bytes);
    if (pyodide) {
      // Kept as bytes (see snapshot-store.js): the page gets them as a Blob, like any other snapshot.
      const blob = stored.blob ?? new Blob([stored.bytes]);
      return { pyodide, bundle: await bundle, snapshot: { blob, key: stored.key }, stored: true };
    }
  }
  return bootFresh(bundle);
}

/** The stored record, or null when IndexedDB fails or has not answered in `ms`: WebKitGTK 2.50 left
 * every transaction of the database hanging after a worker was terminated in the middle of a write
 * (measured), and a visit must not wait for that. */
function readWithin(ms) {
  return Promise.race([readSnapshot().catch(() => null), new Promise((resolve) => setTimeout(resolve, ms, null))]);
}

/** The stored snapshot's bytes, if it was made for this Pyodide and these graders and is intact. */
async function checked(stored, bundle) {
  const { digest } = await bundle;
  if (!digest || stored.key !== snapshotKey(version, digest)) throw new Error("snapshot de outra versão");
  const bytes = stored.bytes ?? new Uint8Array(await stored.blob.arrayBuffer());
  mark("snapshotRead");
  if ((await sha256Hex(bytes)) !== stored.digest) throw new Error("snapshot corrompido");
  mark("snapshotChecked");
  return bytes;
}

/** A Python for the page from the page's own snapshot, or from scratch if it fails to restore. */
async function bootFromSnapshot({ blob, key, bundle, module }) {
  if (module instanceof WebAssembly.Module) compiled = module;
  const bytes = blob.arrayBuffer();
  bytes.catch(() => {}); // Pyodide's own await reports it
  const pyodide = await restore(bytes);
  if (pyodide) return { pyodide, bundle: { bytes: new Uint8Array(bundle) } };
  return bootFresh(fetchBundle());
}

const booting = self.name === "restore" ? null : bootOwn(self.name !== "plain");
booting?.catch(() => {}); // reported by init

async function init({ interruptBuffer, snapshot }) {
  const boot = await (booting ?? bootFromSnapshot(snapshot));
  const { pyodide, bundle } = boot;
  mark("loaded");
  // The file system is not in a snapshot: the graders are unpacked on every boot.
  pyodide.unpackArchive(bundle.bytes, "zip", { extractDir: LESSON_DIR });
  mark("unpacked");
  let made = null;
  if (boot.made) {
    pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(LESSON_DIR)})`);
    // Imported before the snapshot, so a restored Python has them already (the trace module too:
    // it imports the tap only when a run starts).
    pyodide.runPython("import graders.web, graders.trace.browser");
    // Before any JS module or interrupt buffer: a snapshot keeps no JS object but Pyodide's own.
    const bytes = pyodide.makeMemorySnapshot();
    made = {
      blob: new Blob([bytes]),
      key: bundle.digest ? snapshotKey(version, bundle.digest) : null,
      bundle: bundle.bytes.slice().buffer,
      module: compiled,
    };
  } else {
    // Every restore starts with the state the snapshot froze: `random` is seeded afresh from the
    // browser's entropy. The hash seed of str/bytes cannot change after start: every Python of the
    // page (and of later visits with this snapshot) keeps the one the snapshot was made with.
    pyodide.runPython("import random; random.seed()");
  }
  // Below Python, once: each graded run's file-system calls (graders/trace/browser.py imports it
  // before any student code runs, and keeps student code away from it).
  pyodide.registerJsModule("_fstap", installFsTap(pyodide.FS));
  // Without shared memory the page cannot interrupt and Parar terminates this worker instead. A buffer
  // of our own still makes CPython call into JS every few dozen bytecodes (Pyodide's signal check):
  // JavaScriptCore stops a terminated worker only at such a call, never inside a pure WebAssembly
  // loop, so without it a stopped `while True: pass` kept a core busy until the tab closed (measured
  // in WebKitGTK 2.50).
  pyodide.setInterruptBuffer(interruptBuffer ? new Int32Array(interruptBuffer) : new Int32Array(1));
  handle = pyodide.pyimport("graders.web").handle;
  mark("ready");
  const steps = { timings, files: loadTimes() };
  if (made) return { snapshot: made, fresh: true, ...steps };
  // From IndexedDB: the page keeps that snapshot (a handle on the stored blob) for its next Python.
  if (boot.stored) {
    return { snapshot: { ...boot.snapshot, bundle: bundle.bytes.slice().buffer, module: compiled }, restored: true, stored: true, ...steps };
  }
  return { restored: true, ...steps };
}

/** When each file this worker fetched began and ended loading (epoch ms), by file name. */
function loadTimes() {
  const files = {};
  for (const entry of performance.getEntriesByType("resource")) {
    const name = entry.name.split("/").pop();
    files[name] = [performance.timeOrigin + entry.startTime, performance.timeOrigin + entry.responseEnd];
  }
  return files;
}

self.addEventListener("message", async ({ data }) => {
  const { id, type } = data;
  try {
    if (type === "init") {
      const result = await init(data);
      try {
        post({ id, ok: true, result });
      } catch {
        // An engine that cannot post a compiled module: the snapshot goes without it.
        delete result.snapshot.module;
        post({ id, ok: true, result });
      }
    } else if (type === "call") {
      post({ id, ok: true, result: handle(data.request) });
    } else {
      throw new Error(`mensagem desconhecida: ${type}`);
    }
  } catch (error) {
    const text = String((error && error.message) || error);
    post({ id, ok: false, interrupted: text.includes("KeyboardInterrupt"), error: text });
  }
});
