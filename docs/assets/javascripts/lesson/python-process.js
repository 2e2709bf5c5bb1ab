// One Python worker as the page sees it: its own message ids and waiting calls, so a worker the
// page has replaced never answers for the next one.
const WORKER_URL = new URL("./python-worker.js", import.meta.url);

export class RuntimeError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind; // "timeout" | "stopped" | "failed"
  }
}

export class PythonProcess {
  /** `worker`: one already booting (the early worker of <head>), or null for a new one, named by
   * `mode` (python-worker.js): "restore" waits for a snapshot, "plain" never reads a stored one. */
  constructor(worker = null, mode = "") {
    this.worker = worker ?? new Worker(WORKER_URL, { type: "module", name: mode });
    this.pending = new Map();
    this.onfailure = null; // (error) => void: the worker could not load, or died
    this.worker.onmessage = ({ data }) => this.settle(data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.onfailure?.(new RuntimeError("failed", event.message || "o Python parou de responder"));
    };
  }

  /** Boot Python with the graders (and the interrupt buffer, on cross-origin-isolated pages), from
   * `snapshot` when given; resolves to what the worker says it did (python-worker.js, init). */
  init(interruptBuffer, snapshot = null) {
    return this.post({ type: "init", interruptBuffer, ...(snapshot && { snapshot }) });
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

  terminate(reason) {
    this.worker.terminate();
    if (reason) this.failAll(reason);
  }
}

/** Message ids nobody can guess (works outside secure contexts too, unlike randomUUID). */
function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
