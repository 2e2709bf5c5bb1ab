// An exercise whose widget could not be built (its code did not load, or threw) says so in place:
// never a blank exercise.

export function showBrokenExercise(section, error) {
  if (section.querySelector(".exercise-broken")) return;
  const box = document.createElement("div");
  box.className = "exercise-broken admonition failure";
  box.setAttribute("role", "alert");
  const detail = error?.message ? ` (${error.message})` : "";
  const text = document.createElement("p");
  text.textContent = `Este exercício não pôde ser preparado neste navegador${detail}. O texto da lição continua ` +
    "aqui; recarregar a página pode resolver, e “Exportar respostas” guarda o que você já fez.";
  box.append(text);
  section.prepend(box);
}
