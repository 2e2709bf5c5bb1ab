// What the page's worker (python-worker.js) relies on in Pyodide's private snapshot API, checked
// under Node (offline) against the pinned Pyodide. argv[2]: the graders bundle (lesson.zip);
// argv[3]: a graded request (JSON). stdout: JSON facts; tests/test_pyodide_snapshot.py judges them.
import { readFileSync } from "node:fs";
import { loadPyodide, version } from "pyodide";
import { installFsTap } from "../docs/assets/javascripts/lesson/fstap.js";

const DIR = "/opt/corretor";
const bundle = new Uint8Array(readFileSync(process.argv[2]));
const request = readFileSync(process.argv[3], "utf-8");
const facts = { version };

async function attempt(name, action) {
  try {
    facts[name] = { ok: true, value: await action() };
  } catch (error) {
    facts[name] = { ok: false, error: String(error?.message ?? error) };
  }
}

/** The worker's steps after a boot: graders unpacked, tap and interrupt buffer set, then a grade. */
function finish(py) {
  py.unpackArchive(bundle, "zip", { extractDir: DIR });
  py.registerJsModule("_fstap", installFsTap(py.FS));
  py.setInterruptBuffer(new Int32Array(new SharedArrayBuffer(4)));
  return JSON.parse(py.pyimport("graders.web").handle(request));
}

// 1. Making one, in the worker's order.
const maker = await loadPyodide({ _makeSnapshot: true });
maker.unpackArchive(bundle, "zip", { extractDir: DIR });
maker.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(DIR)})`);
maker.runPython("import graders.web, graders.trace.browser");
const snapshot = maker.makeMemorySnapshot();
facts.snapshot = {
  isUint8Array: snapshot instanceof Uint8Array,
  bytes: snapshot.length,
  magic: new Uint32Array(snapshot.buffer, 0, 1)[0],
  // Pyodide's header: the build id as eight 32-bit words after magic, offset, length, padding.
  buildId: Array.from(new Uint32Array(snapshot.buffer, 16, 8), (n) => n.toString(16).padStart(8, "0")).join(""),
};
await attempt("makerGrades", () => finish(maker));
// A snapshot after a JS module is registered is refused (which is why the worker makes it first).
await attempt("snapshotAfterJsModule", () => maker.makeMemorySnapshot().length);
// Without the option, makeMemorySnapshot is refused.
const plain = await loadPyodide();
await attempt("snapshotWithoutOption", () => plain.makeMemorySnapshot().length);

// 2. Restoring it twice (each copy of the bytes, as the page gives each worker its own).
const restored = [];
for (let i = 0; i < 2; i++) {
  const py = await loadPyodide({ _loadSnapshot: snapshot.slice() });
  restored.push(py);
}
const [first, second] = restored;
facts.restore = {
  fileSystemKept: first.runPython(`import os; os.path.exists(${JSON.stringify(DIR)})`),
  modulesKept: first.runPython("import sys; 'graders.web' in sys.modules and 'graders.trace.browser' in sys.modules"),
  pathKept: first.runPython(`import sys; ${JSON.stringify(DIR)} in sys.path`),
  tapKept: first.runPython("import sys; '_fstap' in sys.modules"),
  sameRandom: first.runPython("import random; random.random()") === second.runPython("import random; random.random()"),
  sameHash: first.runPython("hash('licao')") === second.runPython("hash('licao')"),
};
// The worker re-seeds: two restores then draw different numbers.
first.runPython("import random; random.seed()");
second.runPython("import random; random.seed()");
facts.restore.reseededDiffer = first.runPython("random.random()") !== second.runPython("random.random()");
await attempt("restoredGrades", () => finish(first));
await attempt("secondGrades", () => finish(second));

// 3. What the page's fallback meets: a snapshot of another build, or damaged bytes.
const otherBuild = snapshot.slice();
otherBuild[16] ^= 0xff;
await attempt("otherBuild", async () => (await loadPyodide({ _loadSnapshot: otherBuild })) && "restored");
const badMagic = snapshot.slice();
badMagic[0] ^= 0xff;
await attempt("badMagic", async () => (await loadPyodide({ _loadSnapshot: badMagic })) && "restored");
// After refused restores, a plain boot in the same process (the worker's fallback) still works.
await attempt("plainAfterRefusals", async () => {
  const py = await loadPyodide({ _makeSnapshot: true });
  py.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(DIR)})`);
  return finish(py);
});
process.stdout.write(JSON.stringify(facts));
