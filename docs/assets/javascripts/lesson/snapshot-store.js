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
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error("aborted"));
    });
  } finally {
    db.close();
  }
}

/** {key, digest, blob} as stored, or null (none, unreadable, or no IndexedDB here). */
export async function readSnapshot() {
  if (!globalThis.indexedDB) return null;
  const record = await transact("readonly", (store) => store.get(RECORD));
  if (!record || typeof record.key !== "string" || typeof record.digest !== "string" || !(record.blob instanceof Blob)) {
    return null;
  }
  return record;
}

/** Keep `blob` (a snapshot made for `key`) with its digest (computed from the blob when not given),
 * replacing any older one. The Python worker calls it: hashing 31 MB is no work for a page. */
export async function writeSnapshot({ key, blob, digest = null }) {
  if (!globalThis.indexedDB || !key) return false;
  digest ??= await sha256Hex(new Uint8Array(await blob.arrayBuffer()));
  if (!digest) return false;
  await transact("readwrite", (store) => store.put({ key, digest, blob, saved: Date.now() }, RECORD));
  return true;
}

/** Forget the stored snapshot (one that failed to restore). */
export async function clearSnapshot() {
  if (!globalThis.indexedDB) return;
  await transact("readwrite", (store) => store.delete(RECORD));
}
