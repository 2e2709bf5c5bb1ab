// Traced runs inside Pyodide under Node (offline), through the page's own file-system tap (fstap.js)
// and graders.trace.browser. One JSON request per stdin line, one JSON reply per stdout line:
//   {id, code, job, filename?}        -> {id, trace}   (graders.trace.ops.to_json; bytes as latin-1)
//   {id, python}                      -> {id, value}   (value of the last expression, as str)
//   {id, bench: {code, job, n}}       -> {id, ms: [...]} (warm traced runs, each timed alone)
//   {id, bench: {exercise, code, n}}  -> {id, ms: [...]} (warm "Verificar": graders.web.handle, as the worker calls it)
// Errors: {id, error}. Python boots once (~5 s); keep the process for a whole test session.
import { createInterface } from "node:readline";
import { bootPyodide } from "./pyodide_boot.mjs";

// Python's own prints (not the student's: the graders capture those) must not garble the replies.
const py = await bootPyodide({ stdout: (s) => process.stderr.write(s + "\n"), stderr: (s) => process.stderr.write(s + "\n") });
const run = py.runPython(`
import json, sys
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
