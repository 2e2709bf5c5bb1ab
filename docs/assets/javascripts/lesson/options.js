// Each student sees a question's options in an order of their own (kept with their record once they
// start). main.js applies it for every exercise of the page first thing, before the (lazy) widget
// mounts: options must never move once the student may have seen or focused them.
import * as storage from "./storage.js";

/** A uniformly random permutation (Fisher–Yates over crypto randomness). */
function shuffled(items) {
  const random = new Uint32Array(items.length);
  crypto.getRandomValues(random);
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = random[i] % (i + 1);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

const valueOf = (li) => li.querySelector("input").value;

/**
 * Put the options of `section`'s questions in the student's order: `saved` ({question: [ids]}, from
 * their record) or a fresh shuffle. Done once per section; later calls only read the order shown.
 * A list that holds the focus keeps the order it has: the student is reading it (and moving the
 * focused option in the document would drop the focus to <body>). Returns {question: [ids]} as shown.
 */
export function orderOptions(section, saved = storage.peek(section.dataset.exercise).record?.order) {
  const order = {};
  const done = section.dataset.ordered === "true";
  for (const fieldset of section.querySelectorAll("fieldset.exercise-question")) {
    const question = fieldset.dataset.question;
    const list = fieldset.querySelector(".exercise-question__options");
    const items = [...list.children];
    const shown = items.map(valueOf);
    const focused = list.contains(document.activeElement) ? document.activeElement : null;
    if (done || focused) {
      order[question] = shown;
      continue;
    }
    const byId = new Map(items.map((li) => [valueOf(li), li]));
    let ids = Array.isArray(saved?.[question]) ? saved[question].filter((id) => byId.has(id)) : [];
    if (new Set(ids).size !== byId.size) ids = shuffled([...byId.keys()]);
    // Moving the nodes is needed only where the order differs (moving a node would drop its focus).
    if (ids.some((id, i) => id !== shown[i])) list.append(...ids.map((id) => byId.get(id)));
    order[question] = ids;
  }
  section.dataset.ordered = "true";
  return order;
}

/** The order of every exercise of the page (those not ordered yet). */
export function orderAllOptions(root = document) {
  for (const section of root.querySelectorAll("section.exercise:not([data-ordered])")) orderOptions(section);
}
