/* The theme's script (mkdocs-material's bundle) loads on this page only when the reader reaches for
   what it alone does: the search (a pointer or focus on its entry, or its keys `/`, `s`, `f`) or its
   keys for the previous and next page (`p`, `n`). Everything else the lesson shows is final in the
   built page (code notes, header, palette), and its mount costs a phone 0.6-1.1 s of main thread in
   one piece: loaded on any gesture, it made a tap wait. Inlined by sitebuild/finish.py. */
(function (src) {
  if (window.__lessonTheme || window.document$) return; // a page brought in by instant navigation
  var GESTURES = ["pointerover", "pointerdown", "touchstart", "focusin", "keydown"];
  var SEARCH = ".md-search, label[for='__search']";
  // Keys the theme answers (search, previous/next page), replayed once it has loaded.
  var THEME_KEYS = /^[\/sfpn,.]$/;
  var requested = false, domReady = false, key = null;
  document.addEventListener("DOMContentLoaded", function () { domReady = true; }, { once: true });

  function editable(node) {
    return !!(node && node.closest && node.closest("input, textarea, select, [contenteditable]"));
  }

  function mounted() {
    // The theme starts on DOMContentLoaded; past it, it is handed the document as it would have been.
    if (domReady && window.document$) window.document$.next(document);
    if (key) dispatchEvent(new KeyboardEvent("keydown", { key: key, bubbles: true }));
    dispatchEvent(new Event("lesson:theme"));
  }

  function listen(on) {
    GESTURES.forEach(function (type) {
      if (on) addEventListener(type, onGesture, { capture: true, passive: true });
      else removeEventListener(type, onGesture, true);
    });
  }

  function load() {
    if (requested) return;
    requested = true;
    listen(false);
    var script = document.createElement("script");
    script.src = src;
    script.onload = mounted;
    script.onerror = function () { script.remove(); requested = false; listen(true); }; // next gesture retries
    document.body.appendChild(script);
  }

  function onGesture(event) {
    var target = event.target;
    if (event.type === "keydown") {
      if (THEME_KEYS.test(event.key) && !editable(target) && !(event.ctrlKey || event.metaKey || event.altKey)) {
        key = event.key; // not the browser's Ctrl+F
        load();
      }
      return;
    }
    if (target && target.closest && target.closest(SEARCH)) load();
  }

  listen(true);
  window.__lessonTheme = true;
})(%s);
