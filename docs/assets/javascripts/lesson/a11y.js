import { onThemePage } from "./pages.js";

// Names for controls the theme builds in the browser and leaves unnamed (WCAG 2.4.4, 4.1.2):
// the numbered code-annotation markers are links whose only text is drawn by CSS.
function nameAnnotations(root) {
  for (const link of root.querySelectorAll("a.md-annotation__index:not([aria-label])")) {
    const number = link.querySelector("[data-md-annotation-id]")?.dataset.mdAnnotationId;
    if (number) link.setAttribute("aria-label", `Nota ${number} do código`);
  }
}

// The search box's dialog has no name of its own (axe: aria-dialog-name).
function nameSearch(root) {
  root.querySelector('.md-search[role="dialog"]:not([aria-label])')?.setAttribute("aria-label", "Busca no site");
}

// The theme mounts annotations while the page is set up; name them once that is done.
function onPage() {
  nameSearch(document);
  nameAnnotations(document);
  requestAnimationFrame(() => nameAnnotations(document));
}

onThemePage(onPage);
