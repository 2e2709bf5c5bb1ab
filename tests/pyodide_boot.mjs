// Boot Pyodide under Node (offline) as the page's worker does: the file-system tap installed and
// registered as _fstap, then the graders and exercises copied in, outside the home each run empties.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";
import { installFsTap } from "../docs/assets/javascripts/lesson/fstap.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const TARGET = "/opt/corretor";

function copyTree(py, dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === "__pycache__") continue;
    if (statSync(path).isDirectory()) {
      copyTree(py, path);
    } else if (/\.(py|toml|md)$/.test(name)) {
      const dest = join(TARGET, relative(root, path));
      py.FS.mkdirTree(dirname(dest));
      py.FS.writeFile(dest, readFileSync(path));
    }
  }
}

/** A Pyodide with the tap and the graders, `sys.path` pointing at them. */
export async function bootPyodide(options = {}) {
  const py = await loadPyodide(options);
  py.registerJsModule("_fstap", installFsTap(py.FS));
  copyTree(py, join(root, "graders"));
  copyTree(py, join(root, "exercises"));
  py.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(TARGET)})`);
  return py;
}
