// The hot spare: a second Python worker booted in the background once the page is quiet, which
// "Parar" and the time limit switch to where Python cannot be interrupted in place.
import { PythonProcess } from "./python-process.js";

// After a verdict, the student often reads it or clicks again at once: the spare waits this long,
// then for an idle moment, so its boot does not slow that next click.
const QUIET_MS = 1500;
const IDLE_TIMEOUT_MS = 5000;
// Two Pythons take ~2× the memory (some 100 MB more); below this, Parar reloads Python instead.
const MIN_DEVICE_MEMORY_GB = 4;

/** Pages that can interrupt Python in place need no spare; phones with little memory keep one Python. */
export function spareAllowed(canInterrupt) {
  if (canInterrupt) return false;
  const memory = navigator.deviceMemory;
  return !(typeof memory === "number" && memory < MIN_DEVICE_MEMORY_GB);
}

export class SparePython {
  /** `isQuiet()`: whether the page's Python is idle now (the spare never boots during a call);
   * `canInterrupt`: whether the runtime stops Python in place (capabilities.js said so). */
  constructor(isQuiet, canInterrupt = false) {
    this.isQuiet = isQuiet;
    this.allowed = spareAllowed(canInterrupt);
    this.current = null; // {process, ready, booted}
    this.scheduled = false;
  }

  /** "none" | "booting" | "ready" (tests and the benchmark read it). */
  get state() {
    if (!this.current) return "none";
    return this.current.booted ? "ready" : "booting";
  }

  /** Boot a spare once the page is quiet, if there is none and the page may have one. */
  whenQuiet() {
    if (!this.allowed || this.current || this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => idle(() => {
      this.scheduled = false;
      // Busy again: the end of that call asks again.
      if (!this.current && this.isQuiet()) this.boot();
    }), QUIET_MS);
  }

  boot() {
    let process;
    try {
      process = new PythonProcess();
    } catch {
      return; // the browser refused a second worker: Parar reloads Python instead
    }
    const spare = { process, booted: false };
    spare.ready = spare.process.init()
      .then(() => warmUp(spare.process))
      .then(() => {
        spare.booted = true;
      });
    spare.process.onfailure = () => this.drop(spare);
    spare.ready.catch(() => this.drop(spare));
    this.current = spare;
  }

  drop(spare) {
    if (this.current !== spare) return;
    this.current = null;
    spare.process.terminate();
  }

  /** Hand the spare over (booted or still booting), or null. */
  take() {
    const spare = this.current;
    this.current = null;
    return spare;
  }
}

/** A fresh Python's first check takes several times longer than the next (measured 150-770 ms
 * against 40-100 ms): the spare grades the page's first starter code once, unseen, so the check
 * after Parar is as quick as any other. Its verdict is discarded; nothing is stored. */
function warmUp(process) {
  for (const section of document.querySelectorAll("section.exercise[data-widget]")) {
    let data;
    try {
      data = JSON.parse(section.dataset.widget);
    } catch {
      continue;
    }
    if (data.starter == null) continue;
    const request = { action: "grade", exercise: data.id, code: data.starter, answers: null };
    return process.post({ type: "call", request: JSON.stringify(request) }).catch(() => {});
  }
  return Promise.resolve();
}

function idle(callback) {
  if (window.requestIdleCallback) window.requestIdleCallback(callback, { timeout: IDLE_TIMEOUT_MS });
  else setTimeout(callback, 0);
}
