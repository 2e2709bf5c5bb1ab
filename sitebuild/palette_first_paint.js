/* The theme applies the palette of a first visit (nothing stored yet), shows its toggle and answers
   it only when its script runs, which on the lesson is only when the reader searches
   (theme_on_demand.js). Until then this does what the theme's palette component does: paint with
   the palette it would choose (the first whose media matches; for "automatic", the system's scheme,
   followed when the system changes it), show the toggle of the palette in use, and switch and
   remember the palette when the toggle is used (the theme reads that choice when it starts). Inlined by sitebuild/finish.py after the theme's own palette script. */
(function () {
  var form = document.querySelector("form[data-md-component=palette]");
  var inputs = form ? form.querySelectorAll("input") : [];
  if (!inputs.length) return;

  function show(index) {
    for (var i = 0; i < inputs.length; i++) {
      var label = inputs[i].nextElementSibling;
      if (label && label.tagName === "LABEL") label.hidden = i !== index;
    }
  }

  function colours(input) {
    var media = input.getAttribute("data-md-color-media"), source = input;
    if (media === "(prefers-color-scheme)") {
      var light = matchMedia("(prefers-color-scheme: light)").matches;
      source = form.querySelector("[data-md-color-media='(prefers-color-scheme: " + (light ? "light" : "dark") + ")']") || input;
    }
    var color = { media: media };
    ["scheme", "primary", "accent"].forEach(function (key) { color[key] = source.getAttribute("data-md-color-" + key); });
    return color;
  }

  function paint(color) {
    ["scheme", "primary", "accent"].forEach(function (key) {
      if (color[key]) document.body.setAttribute("data-md-color-" + key, color[key]);
    });
  }

  var stored = __md_get("__palette"), index = 0; // else the first, as the theme
  if (stored) index = Math.max(0, Math.min(Number(stored.index) || 0, inputs.length - 1));
  else for (var i = inputs.length - 1; i >= 0; i--) {
    if (matchMedia(inputs[i].getAttribute("data-md-color-media")).matches) index = i;
  }
  show(index);
  if (!stored) paint(colours(inputs[index])); // a stored palette was applied by the theme's script above

  // "Automatic" follows the system's light or dark while the page is open, as with the theme.
  var system = matchMedia("(prefers-color-scheme: light)");
  var follow = function () {
    if (document.documentElement.classList.contains("js")) return; // the theme's script answers now
    if (inputs[index].getAttribute("data-md-color-media") === "(prefers-color-scheme)") paint(colours(inputs[index]));
  };
  if (system.addEventListener) system.addEventListener("change", follow);

  form.addEventListener("change", function (event) {
    if (document.documentElement.classList.contains("js")) return; // the theme's script answers now
    var chosen = Array.prototype.indexOf.call(inputs, event.target);
    if (chosen < 0) return;
    var color = colours(inputs[chosen]);
    index = chosen;
    paint(color);
    show(chosen);
    __md_set("__palette", { index: chosen, color: color });
  });
})();
