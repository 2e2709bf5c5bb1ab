// What this browser can do, each capability tested for itself: one is never inferred from another
// (WebKitGTK reports a cross-origin-isolated page without a SharedArrayBuffer global, for one).

/** Python can be interrupted in place: a SharedArrayBuffer shared with the worker, and Atomics. */
export function canInterrupt() {
  // Without isolation a SharedArrayBuffer (where one exists) cannot be posted to the worker.
  if (!globalThis.crossOriginIsolated) return false;
  try {
    if (typeof SharedArrayBuffer !== "function" || typeof Atomics !== "object" || !Atomics) return false;
    const view = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(view, 0, 2);
    return Atomics.compareExchange(view, 0, 2, 0) === 2 && Atomics.load(view, 0) === 0;
  } catch {
    return false;
  }
}

let moduleWorkers = null;
/** Workers of type "module" (Pyodide runs only there). The browser reads `type` from the options
 * only if it knows it, and reads them before it parses the address: an address that cannot be
 * parsed makes the constructor throw at once, so no worker starts and nothing is fetched. */
function canStartModuleWorkers() {
  if (moduleWorkers !== null) return moduleWorkers;
  moduleWorkers = false;
  if (typeof Worker !== "function") return false;
  const probe = { get type() { moduleWorkers = true; return "module"; } };
  try {
    new Worker("http://[", probe).terminate();
  } catch {
    // Expected: the address is invalid on purpose.
  }
  return moduleWorkers;
}

/** What Python in the page needs and this browser lacks, in the student's words; "" when nothing. */
export function pythonMissing() {
  if (typeof WebAssembly !== "object" || !WebAssembly || typeof WebAssembly.instantiate !== "function") {
    return "este navegador não executa WebAssembly (ou ele foi desativado)";
  }
  if (typeof Worker !== "function") return "este navegador não permite workers, onde o Python roda";
  if (!canStartModuleWorkers()) return "este navegador não inicia workers do tipo módulo, onde o Python roda";
  return "";
}

/** The page can register a service worker (offline visits, isolation on any host). */
export function canUseServiceWorkers() {
  try {
    return Boolean(globalThis.isSecureContext && navigator.serviceWorker && typeof caches === "object");
  } catch {
    return false;
  }
}

/** localStorage exists and accepts a write (private modes and blocked storage may refuse it). */
export function canStore() {
  try {
    const store = globalThis.localStorage;
    if (!store) return false;
    const probe = "licao-2/teste";
    store.setItem(probe, "1");
    store.removeItem(probe);
    return true;
  } catch {
    return false;
  }
}
