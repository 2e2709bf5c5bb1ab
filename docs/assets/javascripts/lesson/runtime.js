// Page side of the Python worker: lazy start, one call at a time, a time limit per call,
// and "Parar" (interrupt where the page can share memory with the worker, else replace the worker
// by one restored from the memory snapshot the first Python made). A Python that cannot start ends
// in "failed", never in an exception: the widget says so and offers to try again.
import { canInterrupt, pythonMissing } from "./capabilities.js";
import { keepPythonOffline } from "./offline.js";
import { PythonProcess, RuntimeError } from "./python-process.js";

export { RuntimeError };
export const DEFAULT_TIME_LIMIT_MS = 10000;
// How long an interrupted Python may take to stop before its worker is replaced.
const INTERRUPT_GRACE_MS = 1000;
// How often an interrupt Python took but did not act on is asked again (see interruptRunning).
const INTERRUPT_AGAIN_MS = 200;
// A start still loading after this long is reported (a slow line may need it: it goes on).
const STALLED_MS = 120_000;
const STALLED = "ele está demorando demais para carregar; numa conexão lenta, espere mais um pouco ou tente de novo";
// A new snapshot is stored for the next visit once the page is quiet: never in the way of a verdict.
const STORE_QUIET_MS = 2000;
const STORE_IDLE_TIMEOUT_MS = 10_000;
const WRITER_URL = new URL("./snapshot-writer.js", import.meta.url);

export class PythonRuntime {
  constructor({ timeLimitMs = DEFAULT_TIME_LIMIT_MS } = {}) {
    this.timeLimitMs = timeLimitMs;
    this.listeners = new Set();
    this.state = "idle"; // idle | loading | restarting | ready | busy | failed
    this.detail = ""; // why it failed, for a widget that subscribes later
    this.process = null; // the PythonProcess running the calls
    // {blob, key, bundle}: the memory snapshot every later Python of the page restores from (one
    // Blob, handed to each new worker without copying the page's own; see python-worker.js).
    this.snapshot = null;
    this.storing = null; // the snapshot being stored for revisits (once)
    this.stored = null; // how the worker kept it, once it answered (see storeWhenQuiet)
    this.ready = null;
    this.stalled = false; // the start in progress took too long (see start)
    this.stallTimer = null;
    this.stalledStart = null; // rejects when the start in progress stalls
    this.rejectStalled = () => {};
    this.queue = Promise.resolve();
    this.waiting = new Set(); // calls queued but not running yet
    this.running = null; // the call Python is running now (a promise that settles when it ends)
    // Tested, not inferred from crossOriginIsolated: some engines isolate without SharedArrayBuffer.
    this.interrupt = canInterrupt() ? new Int32Array(new SharedArrayBuffer(4)) : null;
  }

  onState(listener) {
    this.listeners.add(listener);
    listener(this.state, this.detail);
    return () => this.listeners.delete(listener);
  }

  setState(state, detail = "") {
    this.state = state;
    this.detail = detail;
    for (const listener of this.listeners) listener(state, detail);
    // For the page's inline scripts: the theme's loader waits while Python starts or checks.
    const early = globalThis.__lessonPython;
    if (early) early.state = state;
  }

  /** Start the worker once; later calls return the same promise (a stalled start is begun anew).
   * `restoring`: a new Python replaces one that was stopped, from the page's snapshot. */
  start(restoring = false) {
    if (this.ready && !this.stalled) return this.ready;
    if (this.stalled) {
      this.stalled = false;
      this.process?.terminate();
      this.process = null;
    }
    const snapshot = restoring ? this.snapshot : null;
    this.setState(snapshot ? "restarting" : "loading");
    const missing = pythonMissing();
    if (missing) {
      adoptEarlyWorker()?.terminate();
      this.setState("failed", missing);
      return Promise.reject(new RuntimeError("unsupported", missing));
    }
    // One quiet retry with a fresh worker: a busy static server may drop a connection while
    // Python's files load (python -m http.server queues only a few). Never from a snapshot: the
    // retry is the page's way out when one breaks Python.
    const first = snapshot ? this.boot(null, "restore", snapshot) : this.boot(adoptEarlyWorker());
    const ready = first
      .catch(() => this.boot(null, "plain"))
      .then(() => {
        if (this.ready !== ready) return; // replaced by a newer start
        clearTimeout(this.stallTimer);
        this.stalled = false; // late, but well: this Python is used
        this.setState("ready");
        keepPythonOffline();
      })
      .catch((error) => {
        if (this.ready !== ready) throw error;
        clearTimeout(this.stallTimer);
        this.setState("failed", error.message);
        this.ready = null;
        this.process?.terminate();
        this.process = null;
        throw error;
      });
    this.ready = ready;
    // Calls waiting for this start hear of a stall (see call); the start itself goes on.
    this.stalledStart = new Promise((_, reject) => (this.rejectStalled = reject));
    this.stalledStart.catch(() => {});
    // Pyodide may also give up without a word (seen with a .wasm that failed to download): a start
    // that takes this long is reported with Tentar de novo, and still becomes ready if it ends well.
    clearTimeout(this.stallTimer);
    this.stallTimer = setTimeout(() => {
      if (this.ready !== ready || (this.state !== "loading" && this.state !== "restarting")) return;
      this.stalled = true;
      this.setState("failed", STALLED);
      this.rejectStalled(new RuntimeError("failed", STALLED));
    }, STALLED_MS);
    return ready;
  }

  /** Async: a worker the browser refuses to create rejects like one that fails to load. */
  async boot(worker, mode = "", snapshot = null) {
    this.process?.terminate();
    this.process = null;
    const process = new PythonProcess(worker, mode);
    this.process = process;
    this.watch(process);
    const booted = await process.init(this.interrupt?.buffer, snapshot);
    if (process !== this.process) return;
    this.booted = booted; // how the running Python came to be (tests and the benchmark read it)
    this.keepSnapshot(booted);
  }

  /** The snapshot a worker made (or read from IndexedDB) becomes the page's; a new one is stored. */
  keepSnapshot(booted) {
    if (!booted?.snapshot) return;
    this.snapshot = booted.snapshot;
    if (booted.fresh) this.storeWhenQuiet(booted.snapshot);
  }

  /** Keep the snapshot for the next visit once the page is quiet (a first visit must not slow down). */
  storeWhenQuiet(snapshot) {
    if (!snapshot.key || this.storing === snapshot) return;
    this.storing = snapshot;
    setTimeout(() => idle(() => {
      // Replaced meanwhile by a newer snapshot: that one is stored instead.
      if (this.snapshot !== snapshot) return;
      // A worker of its own hashes and writes it (off the main thread, and out of Parar's way). A
      // browser that refuses it (storage full) costs the next visit a fresh boot, nothing more: a
      // warning, not an error.
      storeSnapshot(snapshot).then(({ stored, problem }) => {
        this.stored = stored; // "blob" | "bytes" | false (tests read it)
        if (problem) console.warn(`Python snapshot not kept for the next visit: ${problem}`);
      }, () => {});
    }), STORE_QUIET_MS);
  }

  /** A worker that dies while loading fails start() (no restart loop); later, it is replaced. */
  watch(process) {
    process.onfailure = (error) => {
      if (process !== this.process) return;
      if (this.state === "loading" || this.state === "restarting") process.failAll(error);
      else this.restart(error);
    };
  }

  /** Run one request (see graders/web.py) under the time limit; resolves to the parsed reply. */
  call(request) {
    // Parar cancels a call still waiting (for its turn, or for Python to load or be restored) at
    // once: the caller hears "stopped" now, and the call never reaches Python.
    const ticket = { cancelled: false };
    const cancelled = new Promise((_, reject) => {
      ticket.cancel = () => {
        ticket.cancelled = true;
        reject(new RuntimeError("stopped", "execução interrompida"));
      };
    });
    cancelled.catch(() => {});
    this.waiting.add(ticket);
    const run = async () => {
      try {
        if (ticket.cancelled) throw new RuntimeError("stopped", "execução interrompida");
        const starting = this.start();
        await Promise.race([starting, this.stalledStart ?? starting, cancelled]);
      } finally {
        this.waiting.delete(ticket);
      }
      if (ticket.cancelled) throw new RuntimeError("stopped", "execução interrompida");
      if (this.interrupt) Atomics.store(this.interrupt, 0, 0);
      this.setState("busy");
      let timer;
      let timedOut = false;
      const overtime = new RuntimeError("timeout", "tempo esgotado");
      const call = this.process.post({ type: "call", request: JSON.stringify(request) });
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
        if (error.kind === "failed" && this.process) this.restart(error);
        throw error;
      } finally {
        clearTimeout(timer);
        this.running = null;
        if (this.state === "busy") this.setState("ready");
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return Promise.race([result, cancelled]);
  }

  /** "Parar": interrupt the running code, or replace the worker when interrupts are unavailable. */
  stop() {
    // Calls still waiting (for their turn, or for Python to load) are cancelled outright.
    for (const ticket of this.waiting) ticket.cancel();
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

  /** Replace the worker: a new one restored from the page's snapshot (under a second), or, before
   * the first Python made one, booted from scratch. Calls made meanwhile wait for it. */
  restart(reason = new RuntimeError("timeout", "tempo esgotado")) {
    clearTimeout(this.stallTimer);
    this.stalled = false;
    this.process?.terminate(reason);
    this.process = null;
    this.ready = null;
    this.start(true).catch(() => {});
  }
}

/** Hand the snapshot to a worker of its own (snapshot-writer.js), which ends once it answers. */
function storeSnapshot({ key, blob }) {
  return new Promise((resolve, reject) => {
    const writer = new Worker(WRITER_URL, { type: "module" });
    writer.onmessage = ({ data }) => {
      writer.terminate();
      resolve(data);
    };
    writer.onerror = (event) => {
      event.preventDefault();
      writer.terminate();
      reject(new Error(event.message || "snapshot writer failed"));
    };
    writer.postMessage({ key, blob });
  });
}

function idle(callback) {
  if (globalThis.requestIdleCallback) requestIdleCallback(callback, { timeout: STORE_IDLE_TIMEOUT_MS });
  else setTimeout(callback, 0);
}

/** The worker started by the inline script at the top of <head> (sitebuild/finish.py), once, if it
 * loaded. A call before the page painted (or on a slow line) has it started now, the same way. */
function adoptEarlyWorker() {
  globalThis.__lessonPython?.start?.();
  const worker = globalThis.__lessonEarlyWorker;
  if (!worker) return null;
  globalThis.__lessonEarlyWorker = null;
  if (!worker.failedEarly) return worker;
  worker.terminate();
  return null;
}

let shared = null;
/** The single runtime of the page, kept across instant navigation. */
export function sharedRuntime() {
  shared ??= new PythonRuntime({ timeLimitMs: globalThis.LESSON_TIME_LIMIT_MS ?? DEFAULT_TIME_LIMIT_MS });
  return shared;
}
