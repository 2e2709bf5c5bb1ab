// A short-lived worker that keeps the page's Python memory snapshot for the next visit: it hashes
// the 31 MB and writes them to IndexedDB (snapshot-store.js), apart from the Python worker, because
// Parar replaces the Python worker. Measured in WebKitGTK 2.50: a write cut short by terminating its
// worker left the database's transactions hanging (even a read) for the rest of the page.
// Protocol: {key, blob} -> {stored: "blob" | "bytes" | false, problem?}
import { sha256Hex, writeSnapshot } from "./snapshot-store.js";

self.addEventListener("message", async ({ data: { key, blob } }) => {
  try {
    const bytes = new Uint8Array(await blob.arrayBuffer());
    self.postMessage({ stored: await writeSnapshot({ key, blob, bytes, digest: await sha256Hex(bytes) }) });
  } catch (error) {
    self.postMessage({ stored: false, problem: `${error?.name ?? "Error"}: ${error?.message ?? error}` });
  }
});
