// The theme's page lifecycle, whether its script ran before ours (deferred) or loads later, at the
// reader's first gesture (sitebuild/theme_on_demand.js announces it with `lesson:theme`).

function whenTheme(then) {
  if (window.document$) then(window.document$);
  else window.addEventListener("lesson:theme", () => window.document$ && then(window.document$), { once: true });
}

/** Run `setUp` for this page now, and again for each page instant navigation brings in. */
export function onEveryPage(setUp) {
  setUp();
  // The theme's document$ replays (or emits at DOMContentLoaded) the page set up above: skip it.
  whenTheme((document$) => {
    let current = true;
    document$.subscribe(() => {
      if (current) current = false;
      else setUp();
    });
  });
}

/** Run `touchUp` each time the theme has built a page (what it adds exists only then). */
export function onThemePage(touchUp) {
  whenTheme((document$) => document$.subscribe(touchUp));
}
