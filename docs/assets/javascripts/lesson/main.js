// Entry point: mount the lesson's widgets on every page, including instant-navigation changes.
import { mountAll } from "./widget.js";
import { mountExport, mountProgress } from "./progress.js";

function mountPage() {
  mountAll(document);
  mountProgress(document);
  mountExport(document);
}

if (window.document$) window.document$.subscribe(mountPage);
else mountPage();
