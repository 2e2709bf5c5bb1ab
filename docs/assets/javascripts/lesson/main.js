// Entry point: mount the lesson's widgets on every page, including instant-navigation changes.
import { flushAll, mountAll } from "./widget.js";
import { mountExport, mountProgress } from "./progress.js";

function mountPage() {
  mountAll(document);
  mountProgress(document);
  mountExport(document);
}

if (window.document$) window.document$.subscribe(mountPage);
else mountPage();
// Closing or reloading the tab right after typing still keeps the last keystrokes.
window.addEventListener("pagehide", flushAll);
