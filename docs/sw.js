// Service worker of the lesson site: offline revisits and cross-origin isolation on any static host.
// sitebuild/finish.py fills BUILD at build time; left null, this worker does nothing.
const BUILD = /*BUILD*/ null;

const SCOPE = self.registration.scope;
// Caches are shared by the whole origin: the scope keeps two sites on one host apart.
const PREFIX = `licao:${SCOPE}:`;
const SITE_CACHE = BUILD && `${PREFIX}site:${BUILD.version}`;
const PYODIDE_CACHE = BUILD && `${PREFIX}pyodide:${BUILD.pyodide}`;
const PYODIDE_DIR = new URL("pyodide/", SCOPE);
// A page that takes longer than this comes from the cache (slow or captive networks).
const NAVIGATION_TIMEOUT_MS = 4000;
// Which files a page (or its worker) is served from: this build's cache, or the network when the
// server already holds a newer build than this worker knows. One page never mixes two builds.
const NETWORK = "network";
const sources = new Map();
// The Python memory snapshot the pages keep for revisits (lesson/snapshot-store.js, same schema).
const SNAPSHOT_DB = `licao:${SCOPE}:python`;

self.addEventListener("install", (event) => {
  if (!BUILD) return;
  if (BUILD.off) {
    self.skipWaiting();
    return;
  }
  // All or nothing (addAll): a half-filled cache is never used. No skipWaiting: open pages of an
  // older build keep the files of their build until they are closed.
  event.waitUntil(caches.open(SITE_CACHE).then((cache) =>
    // "no-cache": revalidated, so the files the page has just loaded are not downloaded again.
    cache.addAll(BUILD.precache.map((path) => new Request(new URL(path, SCOPE), { cache: "no-cache" })))));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const keep = BUILD && !BUILD.off ? [SITE_CACHE, PYODIDE_CACHE] : [];
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && !keep.includes(name)) await caches.delete(name);
    }
    await forgetStaleSnapshot().catch(() => {});
    if (!BUILD || BUILD.off) {
      await self.registration.unregister();
      return;
    }
    // The first visit's page comes under control at once, so the Python it starts gets cached.
    await self.clients.claim();
  })());
});

// A page that started Python before this worker controlled it asks for Python to be kept.
self.addEventListener("message", (event) => {
  if (!BUILD || BUILD.off || event.data?.type !== "keep-python") return;
  event.waitUntil((async () => {
    const cache = await caches.open(PYODIDE_CACHE);
    for (const name of BUILD.pyodideFiles) {
      const url = new URL(name, PYODIDE_DIR);
      if (await lookup(PYODIDE_CACHE, url)) continue;
      const response = await fetch(url).catch(() => null);
      if (response?.status === 200) await cache.put(cacheKey(url), response);
    }
  })());
});

self.addEventListener("fetch", (event) => {
  if (!BUILD || BUILD.off) return;
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || !url.href.startsWith(SCOPE)) return;
  // A Chromium quirk: such requests cannot be answered by a worker.
  if (request.cache === "only-if-cached" && request.mode !== "same-origin") return;
  if (request.mode === "navigate") {
    event.respondWith(orNetwork(navigate(event, request, url), request));
    return;
  }
  const source = sources.get(event.clientId) ?? SITE_CACHE;
  // A dedicated worker is a client of its own: it is served like the page that started it.
  if (event.resultingClientId) sources.set(event.resultingClientId, source);
  event.respondWith(orNetwork(serve(request, url, source, (p) => event.waitUntil(p)), request));
});

async function navigate(event, request, url) {
  const cached = await lookup(SITE_CACHE, url);
  let response = null;
  try {
    // Revalidated, not taken from the HTTP cache: a new build must be seen on the next visit.
    const fresh = new Request(request.url, { cache: "no-cache", redirect: "manual", credentials: "same-origin" });
    response = await withTimeout(fetch(fresh), cached ? NAVIGATION_TIMEOUT_MS : 0);
  } catch {
    response = null; // offline, server down, too slow
  }
  let source = SITE_CACHE;
  if (!response || (cached && response.status >= 500)) {
    if (!cached) return response ?? (await offlineFallback(url));
    response = cached;
  } else if (!cached || !(await sameBody(response.clone(), cached))) {
    // A page this build does not have, or a newer build on the server: the page and all it
    // loads come from the network, and the browser looks for the new service worker.
    source = NETWORK;
    self.registration.update().catch(() => {});
  }
  if (event.resultingClientId) sources.set(event.resultingClientId, source);
  return isolated(response);
}

/** A snapshot made for another Pyodide or other graders is deleted (the page would not restore it
 * anyway: it stores a new one); with the service worker turned off, the database goes too. */
async function forgetStaleSnapshot() {
  if (!self.indexedDB) return;
  if (!BUILD || BUILD.off) {
    await request(indexedDB.deleteDatabase(SNAPSHOT_DB));
    return;
  }
  const opening = indexedDB.open(SNAPSHOT_DB, 1);
  opening.onupgradeneeded = () => opening.result.createObjectStore("snapshots");
  const db = await request(opening);
  try {
    const tx = db.transaction("snapshots", "readwrite");
    const store = tx.objectStore("snapshots");
    const record = await request(store.get("current"));
    if (record && record.key !== BUILD.snapshotKey) store.delete("current");
    await new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onerror = tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

// Storage full, blocked or broken: the site still loads, straight from the network.
async function orNetwork(answer, request) {
  try {
    return await answer;
  } catch {
    return fetch(request);
  }
}

async function serve(request, url, source, waitUntil) {
  const answer = forContext(request);
  if (source === NETWORK) return answer(await fetch(request));
  const pyodide = url.pathname.startsWith(PYODIDE_DIR.pathname);
  const cacheName = pyodide ? PYODIDE_CACHE : source;
  const hit = await lookup(cacheName, url);
  if (hit) return answer(hit);
  const response = await fetch(request);
  // Files outside the precache list (Pyodide, search languages) are kept once fetched whole.
  if (response.status === 200 && response.type === "basic" && !request.headers.has("range")) {
    // Best effort, kept alive past the response: a full disk must not cost the student this file.
    const copy = response.clone();
    waitUntil(caches.open(cacheName).then((cache) => cache.put(cacheKey(url), copy)).catch(() => {}));
  }
  return answer(response);
}

/** Only a document or a worker's own script needs the isolation headers (they set the policy of
 * what runs there); every other file of the site is same-origin, which that policy admits as it is.
 * Such files go out untouched: the browser keeps its compiled code for a response it can trace to
 * Cache Storage or to the network, never for one a service worker built, so a wrapped
 * pyodide.asm.wasm (9 MB) was compiled anew on every visit. */
function forContext(request) {
  return WRAPPED_DESTINATIONS.has(request.destination) ? isolated : (response) => response;
}
const WRAPPED_DESTINATIONS = new Set(["document", "iframe", "frame", "worker", "sharedworker", "serviceworker"]);

function cacheKey(url) {
  const key = new URL(url.href);
  key.search = "";
  key.hash = "";
  if (key.pathname.endsWith("/index.html")) key.pathname = key.pathname.slice(0, -"index.html".length);
  return key.href;
}

async function lookup(cacheName, url) {
  const cache = await caches.open(cacheName);
  return cache.match(cacheKey(url));
}

/** Offline, for a page this build has not kept: its directory address, or the site's 404 page. */
async function offlineFallback(url) {
  const folder = new URL(cacheKey(url));
  if (!folder.pathname.endsWith("/")) {
    folder.pathname += "/";
    if (await lookup(SITE_CACHE, folder)) return Response.redirect(folder.href, 302);
  }
  const missing = await lookup(SITE_CACHE, new URL("404.html", SCOPE));
  if (!missing) return Response.error();
  return isolated(new Response(missing.body, { status: 404, headers: missing.headers }));
}

async function sameBody(a, b) {
  const [x, y] = await Promise.all([a.arrayBuffer(), b.clone().arrayBuffer()]);
  if (x.byteLength !== y.byteLength) return false;
  const u = new Uint8Array(x);
  const v = new Uint8Array(y);
  for (let i = 0; i < u.length; i++) if (u[i] !== v[i]) return false;
  return true;
}

function withTimeout(promise, ms) {
  if (!ms) return promise;
  return Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), ms))]);
}

// What coi-serviceworker does: the site's own responses make the page cross-origin isolated,
// so "Parar" interrupts Python in place on hosts that cannot set these headers.
function isolated(response) {
  if (!response || response.status === 0 || response.type === "opaqueredirect") return response;
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  headers.set("Cross-Origin-Resource-Policy", "same-origin");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
