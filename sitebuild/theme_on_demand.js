/* The theme's script (mkdocs-material's bundle) loads at the reader's first gesture on this page:
   the text and Python's start need none of it, and on a phone it costs ~1.5 s of main thread
   (forced style and layout over the whole lesson). Inlined by sitebuild/finish.py. */
(function (src) {
  if (window.__lessonTheme || window.document$) return; // a page brought in by instant navigation
  var GESTURES = ["pointerdown", "pointermove", "touchstart", "keydown", "wheel", "scroll", "focusin"];
  // The theme's own controls: a gesture on one of them loads the theme at once.
  var CONTROLS = ".md-header, .md-search, .md-sidebar, .md-tabs, .md-footer, .md-top";
  // Keys the theme answers (search, previous/next page), replayed once it has loaded.
  var THEME_KEYS = /^[\/sfpn,.]$/;
  // Python's start, and a check, take both cores of a phone: after a gesture elsewhere the theme
  // waits until Python has been idle for QUIET_MS, at most PYTHON_FIRST_MS.
  var PYTHON_FIRST_MS = 10000, QUIET_MS = 1000, POLL_MS = 250;
  var PYTHON_WORKING = { loading: true, busy: true };
  var requested = false, domReady = false, waiting = false, key = null;
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
    script.onerror = function () { script.remove(); requested = waiting = false; listen(true); }; // next gesture retries
    document.body.appendChild(script);
  }

  function pythonWorking(state) {
    var python = window.__lessonPython; // on pages with exercises (sitebuild/finish.py)
    var starts = !!python && (python.started || !python.slow); // by itself, right after the first paint
    return starts && (state === undefined || PYTHON_WORKING[state] === true);
  }

  // Loads the theme once Python has been idle for QUIET_MS (a gesture is often the scroll before a
  // click on Verificar), or at the deadline.
  function afterPython() {
    if (waiting) return;
    waiting = true;
    var deadline = Date.now() + PYTHON_FIRST_MS, quiet = 0;
    function poll() {
      var python = window.__lessonPython;
      quiet = pythonWorking(python && python.state) ? 0 : quiet + POLL_MS;
      if (quiet >= QUIET_MS || Date.now() >= deadline) (window.requestIdleCallback || setTimeout)(load, { timeout: 1000 });
      else setTimeout(poll, POLL_MS);
    }
    setTimeout(poll, POLL_MS);
  }

  function onGesture(event) {
    var target = event.target;
    if (event.type === "keydown" && THEME_KEYS.test(event.key) && !editable(target) &&
        !(event.ctrlKey || event.metaKey || event.altKey)) key = event.key; // not the browser's Ctrl+F
    var control = target && target.closest && target.closest(CONTROLS);
    // A link leaves the page before the theme could act: no download to abort.
    if (key || (control && !target.closest("a[href]"))) load();
    else afterPython();
  }

  listen(true);
  window.__lessonTheme = true;
})(%s);
