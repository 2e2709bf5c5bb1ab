// Entry point: mount the lesson's widgets on every page, including instant-navigation changes.
// The widget (and its editor bundle) is loaded only on pages that have exercises.
import { mountExport, mountProgress } from "./progress.js";
import { setUpServiceWorker } from "./offline.js";
import { NEAR_SCREEN, pythonWaitsForExercise, whenPainted } from "./loading.js";
import { onEveryPage } from "./pages.js";
import { orderAllOptions } from "./options.js";
import { showBrokenExercise } from "./broken.js";
import "./a11y.js";
import "./copy.js";

// Python boots in its worker once the text is painted, while the editor and the widgets load;
// on a slow line or with Save-Data it starts when an exercise nears the screen (widget.js).
function startPythonEarly() {
  if (document.querySelector("section.exercise") && !pythonWaitsForExercise()) {
    whenPainted()
      .then(() => import("./runtime.js"))
      .then(({ sharedRuntime }) => sharedRuntime().start())
      .catch(() => {}); // the widgets say why (runtime state "failed")
  }
}

// Each exercise (its editor above all: CodeMirror is most of the page's script) is mounted when it
// nears the screen, so a phone paints and scrolls the text without that work. See ARCHITECTURE.md, "The page".
let nearScreen = null;
function mountExercisesNearScreen() {
  nearScreen?.disconnect(); // the previous page's, after instant navigation
  const sections = document.querySelectorAll("section.exercise:not([data-mounted])");
  if (!sections.length) return;
  nearScreen = new IntersectionObserver(async (entries, observer) => {
    const near = entries.filter((e) => e.isIntersecting).map((e) => e.target);
    if (!near.length) return;
    near.forEach((section) => observer.unobserve(section));
    try {
      const { mountAll } = await import("./widget.js");
      await mountAll(document, near);
    } catch (error) {
      // The widget's code (or its editor) did not load: each exercise says so instead of staying blank.
      near.forEach((section) => showBrokenExercise(section, error));
    }
  }, { rootMargin: NEAR_SCREEN });
  sections.forEach((section) => nearScreen.observe(section));
}

async function mountPage() {
  // Each student's order of the options first: they never move once the student may see them.
  orderAllOptions(document);
  startPythonEarly();
  mountExercisesNearScreen();
  if (document.querySelector(".torn-demo")) {
    const { mountDemos } = await import("./demo.js");
    mountDemos(document);
  }
  mountProgress(document);
  mountExport(document);
}

onEveryPage(mountPage);
// Closing or reloading the tab right after typing still keeps the last keystrokes.
window.addEventListener("pagehide", () => document.dispatchEvent(new Event("lesson:flush")));
// Offline revisits and cross-origin isolation (docs/sw.js), once the page has loaded. On a first
// visit to a page with exercises, the install (which copies the site, then Python, into its cache)
// waits until Python is up and a quiet moment comes: it would slow the student's first verdict.
async function setUpOffline() {
  if (document.querySelector("section.exercise") && !navigator.serviceWorker?.controller) {
    const { sharedRuntime } = await import("./runtime.js");
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 20_000); // Python may never start (saving data)
      const stop = sharedRuntime().onState((state) => {
        if (state !== "ready") return;
        clearTimeout(timer);
        queueMicrotask(() => stop());
        setTimeout(resolve, 2000);
      });
    });
    await new Promise((resolve) => (window.requestIdleCallback ?? setTimeout)(resolve, { timeout: 5000 }));
  }
  setUpServiceWorker();
}
const offline = () => setUpOffline().catch(() => {}); // the site works without it
if (document.readyState === "complete") offline();
else window.addEventListener("load", offline, { once: true });
