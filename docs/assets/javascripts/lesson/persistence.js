// Keeping the student's work: persistent storage is asked for once there is work to keep, and where
// the browser does not grant it the student is told once, gently (Safari, for one, clears what a
// site stored after 7 days without a visit), and reminded of "Exportar respostas".
import { canStore } from "./capabilities.js";

const NOTICE_KEY = "licao-2/aviso-armazenamento";
export const NOTICE_TEXT = "Seu código e suas respostas ficam guardados só neste navegador, e ele não garantiu " +
  "mantê-los: alguns navegadores (o Safari, por exemplo) apagam o que um site guardou quando ficam 7 dias sem " +
  "visitá-lo. Para ter sempre uma cópia, use “Exportar respostas” de vez em quando.";

let asked = null;

/** Ask once per page for persistent storage: "granted" | "denied" | "unavailable". Some browsers
 * ask the student first (the promise then waits for their answer); nothing waits on it. */
export function askToKeep() {
  asked ??= (async () => {
    const manager = navigator.storage;
    if (!manager || typeof manager.persist !== "function") return "unavailable";
    try {
      if (typeof manager.persisted === "function" && (await manager.persisted())) return "granted";
      return (await manager.persist()) ? "granted" : "denied";
    } catch {
      return "unavailable";
    }
  })();
  return asked;
}

let noticed = false;

/** The student now has work only this browser keeps: ask to keep it; `show(text)` is called at
 * most once per browser when the answer is no (storage refused altogether is reported elsewhere). */
export function workSaved(show) {
  if (noticed || !canStore()) return;
  noticed = true;
  askToKeep().then((answer) => {
    if (answer === "granted" || alreadyNoticed()) return;
    try {
      localStorage.setItem(NOTICE_KEY, new Date().toISOString());
    } catch {
      return;
    }
    show(NOTICE_TEXT);
  });
}

function alreadyNoticed() {
  try {
    return localStorage.getItem(NOTICE_KEY) != null;
  } catch {
    return true;
  }
}
