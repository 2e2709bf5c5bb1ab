// The Python memory snapshot kept between visits (IndexedDB, one record per site): read by the
// Python worker on a revisit, written by the page in idle time. Used by both, so no DOM here.

const ROOT = new URL("../../../", import.meta.url);
// Per site, like the service worker's caches: docs/sw.js deletes this database on a site update.
export const DATABASE = `licao:${ROOT.href}:python`;
const STORE = "snapshots";
const RECORD = "current"; // one snapshot only: a newer one replaces it

/** What a snapshot fits: this Pyodide (its version; the build id is checked by Pyodide itself on
 * restore) and these graders (the SHA-256 of the bundle it imported). */
export function snapshotKey(pyodideVersion, bundleDigest) {
  return `pyodide ${pyodideVersion}; graders ${bundleDigest}`;
}

/** Hex SHA-256, or null where WebCrypto is missing (plain http on a LAN address): nothing is kept. */
export async function sha256Hex(bytes) {
  if (!globalThis.crypto?.subtle) return null;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error("IndexedDB blocked"));
  });
}

async function transact(mode, action) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const request = action(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(request.result);
      // The request's own error says why (WebKit leaves tx.error null when a put is refused).
      const failed = () => reject(request.error ?? tx.error ?? new Error("IndexedDB transaction aborted"));
      tx.onerror = failed;
      tx.onabort = failed;
    });
  } finally {
    db.close();
  }
}

/** {key, digest, blob} or {key, digest, bytes} (a Uint8Array: see writeSnapshot) as stored, or null
 * (none, unreadable, or no IndexedDB here). */
export async function readSnapshot() {
  if (!globalThis.indexedDB) return null;
  const record = await transact("readonly", (store) => store.get(RECORD));
  if (!record || typeof record.key !== "string" || typeof record.digest !== "string") return null;
  if (!(record.blob instanceof Blob) && !(record.bytes instanceof Uint8Array)) return null;
  return record;
}

/** Keep `blob` (a snapshot made for `key`; `bytes`, its contents, when the caller has them) with its
 * digest (computed when not given), replacing any older one. The Python worker calls it: hashing
 * 31 MB is no work for a page. Resolves to how it was kept ("blob" or "bytes"), or false when
 * nothing can be kept here; rejects when IndexedDB refuses both forms (full, broken). */
export async function writeSnapshot({ key, blob, bytes = null, digest = null }) {
  if (!globalThis.indexedDB || !key) return false;
  const contents = async () => (bytes ??= new Uint8Array(await blob.arrayBuffer()));
  digest ??= await sha256Hex(await contents());
  if (!digest) return false;
  const record = { key, digest, saved: Date.now() };
  try {
    // A Blob first: the browser keeps it as a file, and a restore reads it only when it fits.
    await transact("readwrite", (store) => store.put({ ...record, blob }, RECORD));
    return "blob";
  } catch {
    // WebKit refuses any Blob in IndexedDB in an ephemeral session (private browsing, and every
    // WebDriver session): "UnknownError: Error preparing Blob/File data to be stored in object
    // store", even for 1 KB. It keeps the same bytes as an array (measured in WebKitGTK 2.50).
    const exact = await contents();
    const own = exact.byteOffset === 0 && exact.byteLength === exact.buffer.byteLength ? exact : exact.slice();
    await transact("readwrite", (store) => store.put({ ...record, bytes: own }, RECORD));
    return "bytes";
  }
}

/** Forget the stored snapshot (one that failed to restore). */
export async function clearSnapshot() {
  if (!globalThis.indexedDB) return;
  await transact("readwrite", (store) => store.delete(RECORD));
}
