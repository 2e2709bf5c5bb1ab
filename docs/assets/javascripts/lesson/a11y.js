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

// Code blocks and rows of tab names wider than their column scroll sideways, so the keyboard must
// reach them (WCAG 2.1.1). The theme's script does that when it mounts a block; on the lesson it
// waits for the reader's first gesture (sitebuild/theme_on_demand.js), and a block may start or stop
// overflowing after its mount (the theme collapsing annotations, a verdict's layout, a resize): this
// keeps the same rule, before the theme and after it, whenever a region's size changes.
const SCROLLING = "pre > code, .tabbed-labels";
function focusScrollingRegions() {
  for (const region of document.querySelectorAll(SCROLLING)) {
    if (region.scrollWidth > region.clientWidth) region.tabIndex = 0;
    else region.removeAttribute("tabindex");
  }
}
const whenIdle = (then) => (window.requestIdleCallback ?? setTimeout)(then, { timeout: 2000 });
const resized = "ResizeObserver" in window ? new ResizeObserver(() => whenIdle(focusScrollingRegions)) : null;
function watchScrollingRegions() {
  resized?.disconnect();
  for (const region of document.querySelectorAll(SCROLLING)) resized?.observe(region);
  whenIdle(focusScrollingRegions);
}
watchScrollingRegions();
window.addEventListener("resize", () => whenIdle(focusScrollingRegions));

// The theme mounts annotations while the page is set up; name them once that is done.
function onPage() {
  nameSearch(document);
  nameAnnotations(document);
  requestAnimationFrame(() => {
    nameAnnotations(document);
    focusScrollingRegions();
  });
  watchScrollingRegions(); // the page's blocks, as the theme left them (or a page instant navigation brought)
}

onThemePage(onPage);
