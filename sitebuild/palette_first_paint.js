/* The theme picks the palette of a first visit (nothing stored yet) and shows its toggle only when
   its script runs, which may be at the reader's first gesture (theme_on_demand.js): paint with that
   palette from the start (the first whose media matches, as the theme's watchPalette chooses, the
   system's scheme for "automatic") and show the toggle of the palette in use. Inlined by
   sitebuild/finish.py right after the theme's own palette script. */
(function () {
  var inputs = document.querySelectorAll("form[data-md-component=palette] input");
  if (!inputs.length) return;
  var stored = __md_get("__palette"), chosen = inputs[0]; // else the first, as the theme
  if (stored) chosen = inputs[Math.max(0, Math.min(stored.index, inputs.length - 1))] || chosen;
  else for (var i = inputs.length - 1; i >= 0; i--) {
    if (matchMedia(inputs[i].getAttribute("data-md-color-media")).matches) chosen = inputs[i];
  }
  var label = chosen.nextElementSibling;
  if (label && label.tagName === "LABEL") label.hidden = false;
  if (stored) return; // the theme's script above applied its colours
  var colours = chosen;
  if (chosen.getAttribute("data-md-color-media") === "(prefers-color-scheme)") {
    var light = matchMedia("(prefers-color-scheme: light)").matches;
    colours = document.querySelector("[data-md-color-media='(prefers-color-scheme: " + (light ? "light" : "dark") + ")']") || chosen;
  }
  ["scheme", "primary", "accent"].forEach(function (key) {
    var value = colours.getAttribute("data-md-color-" + key);
    if (value) document.body.setAttribute("data-md-color-" + key, value);
  });
})();
