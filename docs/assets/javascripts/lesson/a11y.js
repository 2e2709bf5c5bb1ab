import { onThemePage } from "./pages.js";

// The search box's dialog has no name of its own (axe: aria-dialog-name).
function nameSearch(root) {
  root.querySelector('.md-search[role="dialog"]:not([aria-label])')?.setAttribute("aria-label", "Busca no site");
}

// Code blocks and rows of tab names may scroll sideways (it depends on the screen and the fonts),
// so the build makes each one focusable (sitebuild/finish.py, WCAG 2.1.1). The theme's script, which
// on the lesson comes when the reader reaches for the search (sitebuild/theme_on_demand.js), removes
// the attribute from a block that does not overflow at the moment it looks; a block may overflow
// later (a verdict's layout, a turned phone). A mutation observer puts it back
// before any other task runs, so no timing can leave a scrolling region out of the keyboard's reach.
const SCROLLING = "pre > code, .tabbed-labels";
function keepFocusable(region) {
  if (region.getAttribute("tabindex") !== "0") region.setAttribute("tabindex", "0");
}
function focusScrollingRegions(root = document) {
  for (const region of root.querySelectorAll(SCROLLING)) keepFocusable(region);
}
if ("MutationObserver" in window) {
  new MutationObserver((changes) => {
    for (const change of changes) {
      const target = change.target;
      if (change.type === "attributes" && target.matches?.(SCROLLING)) keepFocusable(target);
      for (const added of change.addedNodes ?? []) {
        if (added.nodeType !== 1) continue;
        if (added.matches(SCROLLING)) keepFocusable(added);
        focusScrollingRegions(added);
      }
    }
  }).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["tabindex"] });
}
focusScrollingRegions();

// Once the theme has set up a page (its search dialog, its look at what overflows).
function onPage() {
  nameSearch(document);
  focusScrollingRegions(); // the page's blocks, as the theme left them (the observer keeps them so)
}

onThemePage(onPage);
