// When the page's Python may start: after the text is painted, and on a slow line or with
// Save-Data only when an exercise nears the screen. The inline script of <head> (sitebuild/finish.py)
// decides this for the first page; a page reached by instant navigation is painted already.

/** The browser reports Save-Data or a 2g/3g connection. */
export function slowConnection() {
  const connection = navigator.connection;
  return Boolean(connection?.saveData) || /^(slow-2g|2g|3g)$/.test(connection?.effectiveType ?? "");
}

/** Python waits for an exercise near the screen instead of starting with the page. */
export function pythonWaitsForExercise() {
  return globalThis.__lessonPython?.slow ?? slowConnection();
}

/** Resolves once the page has painted its text (at once after instant navigation). */
export function whenPainted() {
  return globalThis.__lessonPython?.painted ?? Promise.resolve();
}

/** How far below the screen an exercise counts as near: Python gets a screenful of reading to boot. */
export const NEAR_SCREEN = "100% 0px 100% 0px";
