// Entry point: mount the lesson's widgets on every page, including instant-navigation changes.
// The widget (and its editor bundle) is loaded only on pages that have exercises.
import { mountExport, mountProgress } from "./progress.js";
import { setUpServiceWorker } from "./offline.js";
import "./a11y.js";

async function mountPage() {
  if (document.querySelector("section.exercise")) {
    const { mountAll } = await import("./widget.js");
    mountAll(document);
  }
  if (document.querySelector(".torn-demo")) {
    const { mountDemos } = await import("./demo.js");
    mountDemos(document);
  }
  mountProgress(document);
  mountExport(document);
}

if (window.document$) window.document$.subscribe(mountPage);
else mountPage();
// Closing or reloading the tab right after typing still keeps the last keystrokes.
window.addEventListener("pagehide", () => document.dispatchEvent(new Event("lesson:flush")));
// Offline revisits and cross-origin isolation (docs/sw.js), once the page has loaded.
if (document.readyState === "complete") setUpServiceWorker();
else window.addEventListener("load", () => setUpServiceWorker(), { once: true });
