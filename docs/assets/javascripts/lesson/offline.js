// The site's service worker (docs/sw.js): registered when the build ships it, removed when the
// build turned it off (see README). Browsers without service workers keep working as before.
import { canUseServiceWorkers } from "./capabilities.js";

const ROOT = new URL("../../../", import.meta.url);
const PREFIX = `licao:${ROOT.href}:`;

let registering = null;

/** Register (or, if the build says "off", unregister) the service worker of this site once. */
export function setUpServiceWorker() {
  if (registering) return registering;
  const mode = document.querySelector('meta[name="lesson-service-worker"]')?.content;
  if (!canUseServiceWorkers() || !mode) {
    registering = Promise.resolve(null);
  } else if (mode === "off") {
    registering = removeServiceWorker().then(() => null);
  } else {
    registering = navigator.serviceWorker
      .register(new URL("sw.js", ROOT), { scope: ROOT.href, updateViaCache: "none" })
      .catch(() => null); // file://, private modes, blocked storage: the site works without it
  }
  return registering;
}

async function removeServiceWorker() {
  try {
    for (const registration of await navigator.serviceWorker.getRegistrations()) {
      if (registration.scope === ROOT.href) await registration.unregister();
    }
    for (const name of await caches.keys()) if (name.startsWith(PREFIX)) await caches.delete(name);
  } catch {
    // Nothing to remove, or storage blocked.
  }
}

/** Resolves once this page is controlled by the service worker, or after `timeoutMs`. */
function whenControlled(timeoutMs) {
  if (!("serviceWorker" in navigator) || navigator.serviceWorker.controller) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      navigator.serviceWorker.removeEventListener("controllerchange", done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    navigator.serviceWorker.addEventListener("controllerchange", done);
  });
}

/**
 * Python has booted in this page: once the service worker controls the page (on a first visit it
 * may take over only after Python was fetched), ask it to keep Python's files for offline visits.
 * They come from the browser's HTTP cache, so nothing is downloaded twice.
 */
export function keepPythonOffline() {
  whenControlled(60_000).then(() => navigator.serviceWorker?.controller?.postMessage({ type: "keep-python" }));
}
