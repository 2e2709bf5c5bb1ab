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
  // Python's start (and a check the reader asked for meanwhile) takes both cores of a phone: a
  // gesture elsewhere lets them finish first, waiting at most this long.
  var PYTHON_FIRST_MS = 10000;
  var PYTHON_WORKING = { loading: true, busy: true };
  var requested = false, domReady = false, waiting = false, palette = false, key = null;
  document.addEventListener("DOMContentLoaded", function () { domReady = true; }, { once: true });

  function editable(node) {
    return !!(node && node.closest && node.closest("input, textarea, select, [contenteditable]"));
  }

  function mounted() {
    // The theme starts on DOMContentLoaded; past it, it is handed the document as it would have been.
    if (domReady && window.document$) window.document$.next(document);
    // A first click on the palette toggle checked its radio before the theme listened for it.
    var checked = palette && document.querySelector("form[data-md-component=palette] input:checked");
    if (checked) checked.dispatchEvent(new Event("change"));
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

  function afterPython() {
    if (waiting) return;
    waiting = true;
    var timer = setTimeout(done, PYTHON_FIRST_MS);
    function done() {
      clearTimeout(timer);
      removeEventListener("lesson:python", onState);
      (window.requestIdleCallback || setTimeout)(load, { timeout: 1000 });
    }
    // "ready" is followed at once (microtasks later) by "busy" when a check was waiting for Python.
    function onState() {
      setTimeout(function () { if (!pythonWorking(window.__lessonPython.state)) done(); }, 0);
    }
    if (pythonWorking(window.__lessonPython && window.__lessonPython.state)) addEventListener("lesson:python", onState);
    else done();
  }

  function onGesture(event) {
    var target = event.target;
    if (event.type === "keydown" && THEME_KEYS.test(event.key) && !editable(target) &&
        !(event.ctrlKey || event.metaKey || event.altKey)) key = event.key; // not the browser's Ctrl+F
    if (target && target.closest && target.closest("form[data-md-component=palette]")) palette = true;
    if (key || (target && target.closest && target.closest(CONTROLS))) load();
    else afterPython();
  }

  listen(true);
  window.__lessonTheme = { load: load };
})(%s);
