// Grade submissions with the graders running inside Pyodide under Node (offline).
// stdin: JSON [{id, exercise, code, answers}]; stdout: JSON {id: verdict}.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, dirname } from "node:path";
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
    } else if (/\.(py|toml)$/.test(name)) {
      const dest = join(target, relative(root, path));
      py.FS.mkdirTree(dirname(dest));
      py.FS.writeFile(dest, readFileSync(path));
    }
  }
}

const jobs = JSON.parse(readFileSync(0, "utf-8"));
const py = await loadPyodide();
// As the page's worker does: the file-system tap, registered before the graders are imported.
py.registerJsModule("_fstap", installFsTap(py.FS));
copyTree(py, join(root, "graders"));
copyTree(py, join(root, "exercises"));
py.globals.set("jobs_json", JSON.stringify(jobs));
const out = py.runPython(`
import json, sys
sys.path.insert(0, ${JSON.stringify(target)})
from graders.grading import grade
from graders.submission import Submission
results = {}
for job in json.loads(jobs_json):
    verdict = grade(job["exercise"], Submission(job.get("code"), job.get("answers")), job["filename"])
    results[job["id"]] = verdict.to_dict()
json.dumps({"python": sys.version.split()[0], "results": results})
`);
process.stdout.write(out);
