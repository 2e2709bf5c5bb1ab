// The copy buttons the build puts on code blocks (sitebuild/code_copy.py): the block's code, without
// the numbered markers of its notes, goes to the clipboard, and a status line says so.

function codeOf(button) {
  const code = button.closest("pre")?.querySelector("code");
  if (!code) return "";
  const copy = code.cloneNode(true);
  copy.querySelectorAll(".lesson-note-marker").forEach((marker) => marker.remove());
  return copy.textContent.replace(/[ \t]+$/gm, ""); // the spaces that stood before a marker
}

let status = null;
function say(text) {
  if (!status) {
    status = Object.assign(document.createElement("p"), { className: "lesson-visually-hidden" });
    status.setAttribute("role", "status");
    document.body.append(status);
  }
  status.textContent = text;
}

document.addEventListener("click", async (event) => {
  const button = event.target.closest?.("button[data-lesson-copy]");
  if (!button) return;
  try {
    await navigator.clipboard.writeText(codeOf(button));
    button.title = "Código copiado";
    say("Código copiado para a área de transferência.");
  } catch {
    say("Não foi possível copiar: selecione o código e copie com o teclado.");
  }
  setTimeout(() => { button.title = "Copiar o código"; }, 2000);
});
