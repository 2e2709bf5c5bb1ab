// Grade submissions with the graders running inside Pyodide under Node (offline).
// stdin: JSON [{id, exercise, code, answers}]; stdout: JSON {id: verdict}.
import { readFileSync } from "node:fs";
import { bootPyodide } from "./pyodide_boot.mjs";

const jobs = JSON.parse(readFileSync(0, "utf-8"));
const py = await bootPyodide();
py.globals.set("jobs_json", JSON.stringify(jobs));
const out = py.runPython(`
import json, sys
from graders.grading import grade
from graders.submission import Submission
results = {}
for job in json.loads(jobs_json):
    verdict = grade(job["exercise"], Submission(job.get("code"), job.get("answers")), job["filename"])
    results[job["id"]] = verdict.to_dict()
json.dumps({"python": sys.version.split()[0], "results": results})
`);
process.stdout.write(out);
