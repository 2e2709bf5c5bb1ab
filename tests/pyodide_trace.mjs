// Traced runs inside Pyodide under Node (offline), through the page's own file-system tap (fstap.js)
// and graders.trace.browser. One JSON request per stdin line, one JSON reply per stdout line:
//   {id, code, job, filename?}        -> {id, trace}   (graders.trace.ops.to_json; bytes as latin-1)
//   {id, python}                      -> {id, value}   (value of the last expression, as str)
//   {id, bench: {code, job, n}}       -> {id, ms: [...]} (warm traced runs, each timed alone)
//   {id, bench: {exercise, code, n}}  -> {id, ms: [...]} (warm "Verificar": graders.web.handle, as the worker calls it)
// Errors: {id, error}. Python boots once (~5 s); keep the process for a whole test session.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";
import { installFsTap } from "../docs/assets/javascripts/lesson/fstap.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const target = "/opt/corretor"; // outside the home, which each run empties

function copyTree(py, dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === "__pycache__") continue;
    if (statSync(path).isDirectory()) {
      copyTree(py, path);
    } else if (/\.(py|toml|md)$/.test(name)) {
      const dest = join(target, relative(root, path));
      py.FS.mkdirTree(dirname(dest));
      py.FS.writeFile(dest, readFileSync(path));
    }
  }
}

// Python's own prints (not the student's: the graders capture those) must not garble the replies.
const py = await loadPyodide({ stdout: (s) => process.stderr.write(s + "\n"), stderr: (s) => process.stderr.write(s + "\n") });
// As the page's worker does: the tap is installed and registered before the graders are imported.
py.registerJsModule("_fstap", installFsTap(py.FS));
copyTree(py, join(root, "graders"));
copyTree(py, join(root, "exercises"));
const run = py.runPython(`
import json, sys
sys.path.insert(0, ${JSON.stringify(target)})
from graders.trace.browser import run_in_pyodide
from graders.trace.ops import to_json
from graders.web import handle

def run(request_json):
    r = json.loads(request_json)
    if "exercise" in r:
        return handle(json.dumps({"action": "grade", "exercise": r["exercise"], "code": r["code"]}))
    return to_json(run_in_pyodide(r["code"], r.get("filename") or "solucao.py", r["job"]))
run
`);

const send = (text) => process.stdout.write(text + "\n");
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  const id = JSON.stringify(request.id ?? null);
  try {
    if (request.python !== undefined) {
      send(`{"id":${id},"value":${JSON.stringify(String(py.runPython(request.python)))}}`);
    } else if (request.bench) {
      const job = JSON.stringify(request.bench);
      const ms = [];
      for (let i = 0; i < (request.bench.n ?? 20); i++) {
        const t0 = performance.now();
        run(job);
        ms.push(performance.now() - t0);
      }
      send(JSON.stringify({ id: request.id, ms }));
    } else {
      send(`{"id":${id},"trace":${run(JSON.stringify(request))}}`);
    }
  } catch (error) {
    send(JSON.stringify({ id: request.id, error: String(error?.message ?? error) }));
  }
}
