// Page side of the Python worker: lazy start, one call at a time, a time limit per call,
// and "Parar" (interrupt when the page is cross-origin isolated, else a fresh worker).
import { keepPythonOffline } from "./offline.js";

const WORKER_URL = new URL("./python-worker.js", import.meta.url);
const BUNDLE_URL = new URL("../../python/lesson.zip", import.meta.url);
export const DEFAULT_TIME_LIMIT_MS = 10000;
// How long an interrupted Python may take to stop before its worker is replaced.
const INTERRUPT_GRACE_MS = 1000;
// How often an interrupt Python took but did not act on is asked again (see interruptRunning).
const INTERRUPT_AGAIN_MS = 200;

export class RuntimeError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind; // "timeout" | "stopped" | "failed"
  }
}

export class PythonRuntime {
  constructor({ timeLimitMs = DEFAULT_TIME_LIMIT_MS } = {}) {
    this.timeLimitMs = timeLimitMs;
    this.listeners = new Set();
    this.state = "idle"; // idle | loading | ready | busy | failed
    this.worker = null;
    this.ready = null;
    this.pending = new Map();
    this.queue = Promise.resolve();
    this.waiting = new Set(); // calls queued but not running yet
    this.running = null; // the call Python is running now (a promise that settles when it ends)
    this.interrupt = globalThis.crossOriginIsolated ? new Int32Array(new SharedArrayBuffer(4)) : null;
  }

  onState(listener) {
    this.listeners.add(listener);
    listener(this.state);
    return () => this.listeners.delete(listener);
  }

  setState(state, detail = "") {
    this.state = state;
    for (const listener of this.listeners) listener(state, detail);
  }

  /** Start the worker once; later calls return the same promise. */
  start() {
    if (this.ready) return this.ready;
    this.setState("loading");
    // One quiet retry with a fresh worker: a busy static server may drop a connection while
    // Python's files load (python -m http.server queues only a few).
    this.ready = this.boot(adoptEarlyWorker())
      .catch(() => this.boot(null))
      .then(() => {
        this.setState("ready");
        keepPythonOffline();
      })
      .catch((error) => {
        this.setState("failed", error.message);
        this.ready = null;
        this.worker?.terminate();
        this.worker = null;
        throw error;
      });
    return this.ready;
  }

  boot(worker) {
    this.worker?.terminate();
    this.worker = worker ?? new Worker(WORKER_URL, { type: "module" });
    this.worker.onmessage = ({ data }) => this.settle(data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      const error = new RuntimeError("failed", event.message || "o Python parou de responder");
      if (this.state === "loading") this.failAll(error); // start() reports it; no restart loop
      else this.restart(error);
    };
    return this.post({ type: "init", bundleUrl: BUNDLE_URL.href, interruptBuffer: this.interrupt?.buffer });
  }

  post(message) {
    const id = randomId();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
  }

  settle({ id, ok, result, error, interrupted }) {
    const waiter = this.pending.get(id);
    if (!waiter) return;
    this.pending.delete(id);
    if (ok) waiter.resolve(result);
    else waiter.reject(new RuntimeError(interrupted ? "stopped" : "failed", error));
  }

  failAll(error) {
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
  }

  /** Run one request (see graders/web.py) under the time limit; resolves to the parsed reply. */
  call(request) {
    const ticket = { cancelled: false };
    this.waiting.add(ticket);
    const run = async () => {
      try {
        await this.start();
      } finally {
        this.waiting.delete(ticket);
      }
      if (ticket.cancelled) throw new RuntimeError("stopped", "execução interrompida");
      if (this.interrupt) Atomics.store(this.interrupt, 0, 0);
      this.setState("busy");
      let timer;
      let timedOut = false;
      const overtime = new RuntimeError("timeout", "tempo esgotado");
      const call = this.post({ type: "call", request: JSON.stringify(request) });
      this.running = call.catch(() => {});
      // Once over time, whatever the call says, the caller hears "tempo esgotado".
      const guarded = call.catch((error) => {
        throw timedOut ? overtime : error;
      });
      const limit = new Promise((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          if (!this.interrupt) {
            this.restart(overtime);
            reject(overtime);
            return;
          }
          // Interrupt first, as "Parar" does; rebuild the worker only if Python does not stop soon.
          this.interruptRunning(overtime).then(() => reject(overtime));
        }, this.timeLimitMs);
      });
      try {
        const reply = await Promise.race([guarded, limit]);
        return JSON.parse(reply);
      } catch (error) {
        // A Python that failed on its own (not stopped, not timed out) may be broken: start afresh.
        if (error.kind === "failed" && this.worker) this.restart(error);
        throw error;
      } finally {
        clearTimeout(timer);
        this.running = null;
        if (this.state === "busy") this.setState("ready");
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  /** "Parar": interrupt the running code, or replace the worker when interrupts are unavailable. */
  stop() {
    // Calls still waiting (for their turn, or for Python to load) are cancelled outright.
    for (const ticket of this.waiting) ticket.cancelled = true;
    if (this.state !== "busy") return;
    const stopped = new RuntimeError("stopped", "execução interrompida");
    if (this.interrupt) this.interruptRunning(stopped);
    else this.restart(stopped);
  }

  /** SIGINT to the running call (Python raises KeyboardInterrupt); resolves when the call has ended.
   * Python takes the signal from the buffer and resets it; one it took without raising (CPython drops
   * an exception raised inside a finalizer, for one) is asked again. The worker is replaced only if
   * the call still runs after the grace period. */
  interruptRunning(reason) {
    const running = this.running;
    if (!running) return Promise.resolve();
    Atomics.store(this.interrupt, 0, 2);
    const again = setInterval(() => Atomics.compareExchange(this.interrupt, 0, 0, 2), INTERRUPT_AGAIN_MS);
    const fallback = setTimeout(() => this.restart(reason), INTERRUPT_GRACE_MS);
    return running.finally(() => {
      clearInterval(again);
      clearTimeout(fallback);
    });
  }

  restart(reason = new RuntimeError("timeout", "tempo esgotado")) {
    this.worker?.terminate();
    this.worker = null;
    this.ready = null;
    this.failAll(reason);
    this.setState("idle");
    this.start().catch(() => {});
  }
}

/** The worker started by the inline script at the top of <head> (overrides/hooks/exercises.py), once, if it loaded. */
function adoptEarlyWorker() {
  const worker = globalThis.__lessonEarlyWorker;
  if (!worker) return null;
  globalThis.__lessonEarlyWorker = null;
  if (!worker.failedEarly) return worker;
  worker.terminate();
  return null;
}

/** Message ids nobody can guess (works outside secure contexts too, unlike randomUUID). */
function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

let shared = null;
/** The single runtime of the page, kept across instant navigation. */
export function sharedRuntime() {
  shared ??= new PythonRuntime({ timeLimitMs: globalThis.LESSON_TIME_LIMIT_MS ?? DEFAULT_TIME_LIMIT_MS });
  return shared;
}
