// The one Web Worker that runs Python (Pyodide) for every exercise widget.
// Protocol: {id, type: "init", bundleUrl, interruptBuffer?} -> {id, ok}
//           {id, type: "call", request}                      -> {id, ok, result | error}
// `request`/`result` are JSON strings handled by graders/web.py; nothing else is shared.
import { loadPyodide } from "../../../pyodide/pyodide.mjs";
import { installFsTap } from "./fstap.js";

const LESSON_DIR = "/opt/corretor"; // outside the home, which each graded run empties
// Captured before any Python runs: the graders also keep student code away from `js`.
const post = self.postMessage.bind(self);
let handle = null;

// Pyodide may give up starting without rejecting loadPyodide (a .wasm that failed to download, for
// one): that error then surfaces only as an unhandled rejection here, and fails the boot with it.
let bootAborted;
const aborted = new Promise((_, reject) => (bootAborted = reject));
self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  bootAborted(event.reason instanceof Error ? event.reason : new Error(String(event.reason)));
});

// Python boots as soon as the worker exists, before the page sends "init".
const booting = Promise.race([
  loadPyodide({
    indexURL: new URL("../../../pyodide/", import.meta.url).href,
    // The graders capture the student's output themselves; the runtime stays quiet.
    stdout: () => {},
    stderr: () => {},
  }),
  aborted,
]);
booting.catch(() => {}); // reported by "init"

async function init({ bundleUrl, interruptBuffer }) {
  const bundle = fetch(bundleUrl, { cache: "no-cache" }); // downloads while Python boots
  const pyodide = await booting;
  // Below Python, once: each graded run's file-system calls (graders/trace/browser.py imports it
  // before any student code runs, and keeps student code away from it).
  pyodide.registerJsModule("_fstap", installFsTap(pyodide.FS));
  if (interruptBuffer) pyodide.setInterruptBuffer(new Int32Array(interruptBuffer));
  const response = await bundle;
  if (!response.ok) throw new Error(`não foi possível baixar os corretores (${response.status})`);
  pyodide.unpackArchive(await response.arrayBuffer(), "zip", { extractDir: LESSON_DIR });
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(LESSON_DIR)})`);
  handle = pyodide.pyimport("graders.web").handle;
}

self.addEventListener("message", async ({ data }) => {
  const { id, type } = data;
  try {
    if (type === "init") {
      await init(data);
      post({ id, ok: true });
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
