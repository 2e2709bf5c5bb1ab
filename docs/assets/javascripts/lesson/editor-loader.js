// The CodeMirror editor, loaded in pieces (vendor/codemirror/, built by `make editor`): all are fetched
// at once, then evaluated one per task, in the order they depend on each other, with the main thread
// given back in between. In one piece, its evaluation was a single long task that made a tap wait.
import { yieldToMain } from "./yield.js";

const PIECES = ["cm-state", "cm-view", "cm-language", "cm-commands", "cm-python", "editor"];
const BASE = new URL("../vendor/codemirror/", import.meta.url);

function preload(piece) {
  const link = document.createElement("link");
  link.rel = "modulepreload";
  link.href = new URL(`${piece}.js`, BASE).href;
  document.head.append(link);
}

async function load() {
  PIECES.forEach(preload);
  let entry;
  for (const piece of PIECES) {
    await yieldToMain();
    entry = await import(new URL(`${piece}.js`, BASE).href);
  }
  return entry;
}

export const { createEditor } = await load();
