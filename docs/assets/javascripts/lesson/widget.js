// One exercise widget: enhances the server-rendered <section class="exercise"> in place.
// Flow: page -> widget -> runtime (worker) -> graders -> result -> widget.
import { createEditor } from "./editor-loader.js";
import { yieldToMain } from "./yield.js";
import { sharedRuntime } from "./runtime.js";
import * as storage from "./storage.js";
import { renderTimeline } from "./timeline.js";
import { NEAR_SCREEN } from "./loading.js";
import { orderOptions } from "./options.js";
import { workSaved } from "./persistence.js";
import { showBrokenExercise } from "./broken.js";

const SAVE_DELAY_MS = 400;
const RESTARTING = "Reiniciando o Python…"; // a new Python replaces one Parar or the time limit stopped
// Widgets of the current page; those left behind by instant navigation are disposed.
const mounted = new Set();
const STATE_TEXT = { pendente: "pendente", ok: "ok", falhou: "falhou" };
// A failed code criterion, while the diagnosis it would give away is still unanswered.
// The same line as graders.grading.CLOSED_CODE_FEEDBACK (a verdict saved before the rule still shows it).
const CLOSED_FEEDBACK = "O diagnóstico vem primeiro: acerte as perguntas de diagnóstico (ou peça para ver a resposta) " +
  "e verifique de novo para ver por que esta verificação falhou. Para ver o que o seu código faz, use Executar.";
const STALE_TEXT = {
  run: "Os resultados abaixo são de antes da última execução: verifique de novo para atualizá-los.",
  edit: "Os resultados abaixo são de antes da sua última mudança no código ou nas respostas: verifique de novo para atualizá-los.",
  error: "A última verificação não chegou ao fim: os resultados abaixo são de uma verificação anterior, de outro código ou de outras respostas.",
};

/** FNV-1a, 32 bits, in hex: enough to tell "the same code and answers" from "changed" (not a security hash). */
function fingerprint(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value !== false && value != null) node.setAttribute(name, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c != null));
  return node;
}

/** Grader messages mark code with `backticks`: show those parts as <code>, the rest as text. */
function richText(text) {
  const fragment = document.createDocumentFragment();
  text.split("`").forEach((part, i) => fragment.append(i % 2 ? el("code", {}, part) : part));
  return fragment;
}

function isDark() {
  return document.body.getAttribute("data-md-color-scheme") === "slate";
}

/** Pixels of the window hidden by the theme's sticky header (and tabs), plus a little air. */
function headerBottom() {
  const header = document.querySelector(".md-header");
  return header ? Math.max(0, header.getBoundingClientRect().bottom) + 8 : 0;
}

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = el("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export class ExerciseWidget {
  constructor(section) {
    this.section = section;
    this.data = JSON.parse(section.dataset.widget);
    this.id = this.data.id;
    this.runtime = sharedRuntime();
    this.saveTimer = null;
    this.questions = [...section.querySelectorAll("fieldset.exercise-question")];
    this.writings = [...section.querySelectorAll(".exercise-writing")];
    this.criteria = new Map([...section.querySelectorAll("li[data-criterion]")].map((li) => [li.dataset.criterion, li]));
    // The neutral titles, put back whenever a criterion is not (or no longer) answered right.
    this.titles = new Map([...this.criteria].map(([id, li]) => [id, li.querySelector(".exercise-criterion__label").innerHTML]));
    // Criteria answered by questions (the others are judged from the code).
    this.asked = new Set(this.questions.map((f) => f.dataset.criterion));
  }

  mount() {
    // A keyboard user may reach the exercise before its widget loads: they keep their focus.
    const focused = this.section.contains(document.activeElement) ? document.activeElement : null;
    const { record, problem } = storage.load(this.id);
    this.hadRecord = Boolean(record); // a record that vanishes later was cleared by the browser
    this.rev = record?.rev; // the saved version this tab shows: another tab's save has a newer one
    // Criteria whose questions were all answered at some Verificar (a real attempt), and those
    // whose answer the student chose to see: both kept in the record; `revealed` is exported.
    this.attempted = new Set(Array.isArray(record?.attempted) ? record.attempted : []);
    this.revealed = new Set(Array.isArray(record?.revealed) ? record.revealed : []);
    this.alertBox = el("div", { class: "exercise-alert admonition warning", role: "alert", hidden: true });
    this.conflictBox = el("div", { class: "exercise-conflict admonition warning", role: "alert", hidden: true },
      el("p", { class: "exercise-conflict__text" }),
      el("p", { class: "exercise-conflict__actions" },
        el("button", { type: "button", class: "md-button", onclick: () => this.useOtherVersion() }, "Trocar pela outra versão"),
        " ",
        el("button", { type: "button", class: "md-button", onclick: () => this.keepThisVersion() }, "Ficar com esta")));
    this.section.prepend(this.alertBox, this.conflictBox);
    if (problem) this.alert(`Atenção: ${problem}. Este exercício recomeça do código inicial.`);
    // Without a saved record, keep what the student may already have ticked while the page loaded.
    this.applyOptionOrder(record?.order);
    if (record?.answers) this.restoreAnswers(record.answers);
    for (const fieldset of this.questions) {
      fieldset.addEventListener("change", () => {
        this.updateWritings();
        this.scheduleSave();
        this.checkStale();
      });
    }
    if (record?.texts) this.restoreTexts(record.texts);
    for (const box of this.writings) box.querySelector("textarea").addEventListener("input", () => this.scheduleSave());
    this.updateWritings();
    if (this.data.starter != null) this.mountEditor(record?.code ?? this.data.starter);
    this.mountToolbar();
    this.mountResults();
    if (record?.lastVerdict) {
      this.renderVerdict(record.lastVerdict, { restored: true });
      // A record from before `verdictOf` was saved with the code it last verified, as a rule.
      this.verdictOf = typeof record.verdictOf === "string" ? record.verdictOf : this.inputsKey();
      this.checkStale();
    }
    this.shownVerdict = JSON.stringify(record?.lastVerdict ?? null);
    this.showConflict(record?.conflict);
    this.lastSaved = JSON.stringify(this.fields()); // visiting alone writes nothing
    this.stopSync = storage.onOtherTabSave(this.id, () => this.onOtherTabSave());
    this.unsubscribe = this.runtime.onState((state, detail) => this.onRuntimeState(state, detail));
    // Ctrl+Enter verifies from anywhere in the exercise (the editor handles it itself too).
    this.section.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
        event.preventDefault();
        this.verify();
      }
    });
    this.section.dataset.mounted = "true";
    mounted.add(this);
    this.keepFocus(focused);
  }

  /** Focus the element focused before mounting (or, if it was replaced, its equivalent) when the
   * mount dropped the focus to <body>: a keyboard user never loses their place. */
  keepFocus(focused) {
    const now = document.activeElement;
    if (!focused || now === focused || (now && now !== document.body)) return;
    let target = focused.isConnected && this.section.contains(focused) ? focused : null;
    if (!target && focused.matches("input[name]")) {
      target = this.section.querySelector(`input[name="${CSS.escape(focused.name)}"][value="${CSS.escape(focused.value)}"]`);
    }
    target?.focus({ preventScroll: true });
  }

  dispose() {
    this.saveNow();
    this.unsubscribe?.();
    this.stopSync?.();
    this.themeObserver?.disconnect();
    mounted.delete(this);
  }

  // --- structured answers -------------------------------------------------------------

  answers() {
    const result = {};
    for (const fieldset of this.questions) {
      const checked = [...fieldset.querySelectorAll("input:checked")].map((i) => i.value);
      const multiple = fieldset.querySelector("input[type=checkbox]") != null;
      result[fieldset.dataset.question] = multiple ? checked : (checked[0] ?? null);
    }
    return result;
  }

  /** Criteria every question of which has an answer right now. */
  answeredCriteria() {
    const blank = new Set(this.questions.filter((f) => !f.querySelector("input:checked")).map((f) => f.dataset.criterion));
    return [...this.asked].filter((id) => !blank.has(id));
  }

  /** Options in an order of this student's own, kept with their record once they start (main.js
   * has usually applied it already, before the widget loaded: then it is only read). */
  applyOptionOrder(saved) {
    this.order = orderOptions(this.section, saved);
  }

  // --- written answers (not graded) -------------------------------------------------------

  /** Every written answer with text, hidden boxes included (`shown`: only those on screen). */
  texts({ shown = false } = {}) {
    const texts = {};
    for (const box of this.writings) {
      const text = box.querySelector("textarea").value;
      if (text.trim() && !(shown && box.hidden)) texts[box.dataset.writing] = text;
    }
    return texts;
  }

  /** Written answers kept while their option is unticked: saved, never exported nor graded. */
  hiddenTexts() {
    return this.writings.filter((box) => box.hidden && box.querySelector("textarea").value.trim()).map((box) => box.dataset.writing);
  }

  restoreTexts(texts) {
    for (const box of this.writings) {
      const text = texts[box.dataset.writing];
      if (typeof text === "string") box.querySelector("textarea").value = text;
    }
  }

  /** A box tied to an option shows while that option is ticked (what was typed is kept). */
  updateWritings() {
    for (const box of this.writings) {
      if (!box.dataset.option) continue;
      const input = this.section.querySelector(
        `fieldset[data-question="${box.dataset.question}"] input[value="${box.dataset.option}"]`);
      box.hidden = !(input && input.checked);
    }
  }

  renderModels(writings) {
    for (const box of this.writings) {
      box.querySelector(".exercise-writing__model")?.remove();
      // The grader sends a model explanation only once its criterion is answered right or revealed.
      const writing = (writings || []).find((w) => w.id === box.dataset.writing);
      if (!writing?.model) continue;
      box.append(el("div", { class: "exercise-writing__model" },
        el("p", {}, el("strong", {}, "Explicação de referência"), " — compare com o que você escreveu:"),
        el("p", {}, richText(writing.model))));
    }
  }

  restoreAnswers(answers) {
    for (const fieldset of this.questions) {
      const value = answers[fieldset.dataset.question];
      const chosen = new Set(Array.isArray(value) ? value : value == null ? [] : [value]);
      for (const input of fieldset.querySelectorAll("input")) input.checked = chosen.has(input.value);
    }
  }

  // --- editor -------------------------------------------------------------------------

  mountEditor(code) {
    const host = this.section.querySelector(".exercise-editor");
    host.replaceChildren();
    const help = el("p", { class: "exercise-editor__help", id: `ajuda-editor-${this.id}` },
      "Tab indenta e Shift+Tab desfaz a indentação; para sair do editor pelo teclado, aperte Esc e depois Tab. ",
      "Ctrl+Enter verifica.");
    this.editor = createEditor(host, {
      doc: code,
      label: `Código do exercício ${this.data.title}`,
      dark: isDark(),
      coveredTop: headerBottom,
      onChange: () => {
        this.scheduleSave();
        this.checkStale();
      },
      onSubmit: () => this.verify(),
    });
    this.editor.view.contentDOM.setAttribute("aria-describedby", help.id);
    host.append(help);
    this.themeObserver = new MutationObserver(() => this.editor.setDark(isDark()));
    this.themeObserver.observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  }

  code() {
    return this.editor ? this.editor.getText() : null;
  }

  // --- toolbar ------------------------------------------------------------------------

  mountToolbar() {
    const hasCode = this.editor != null;
    this.buttons = {
      run: hasCode ? el("button", { type: "button", class: "md-button", onclick: () => this.run() }, "Executar") : null,
      verify: el("button", { type: "button", class: "md-button md-button--primary", onclick: () => this.verify(),
        "aria-keyshortcuts": hasCode ? "Control+Enter" : null }, "Verificar"),
      stop: el("button", { type: "button", class: "md-button", hidden: true, onclick: () => this.runtime.stop() }, "Parar"),
      reset: hasCode ? el("button", { type: "button", class: "md-button", onclick: () => this.reset() }, "Reiniciar") : null,
      download: hasCode ? el("button", { type: "button", class: "md-button", onclick: () => this.download() }, "Baixar .py") : null,
    };
    this.status = el("span", { class: "exercise-status", role: "status", "aria-live": "polite" });
    const bar = el("div", { class: "exercise-toolbar", role: "group", "aria-label": `Ações do exercício ${this.data.title}` },
      ...Object.values(this.buttons), this.status);
    // Above the summary the build put in place (or the criteria's title, on an older page).
    const anchor = this.section.querySelector(".exercise-summary") ?? this.section.querySelector(".exercise-criteria__title");
    this.output = el("div", { class: "exercise-output", hidden: true });
    this.unavailable = el("div", { class: "exercise-unavailable admonition failure", role: "alert", hidden: true },
      el("p", { class: "exercise-unavailable__text" }),
      el("p", {}, el("button", { type: "button", class: "md-button", onclick: () => this.retryPython() }, "Tentar de novo")));
    this.note = el("div", { class: "exercise-note admonition info", role: "status", hidden: true },
      el("p", { class: "exercise-note__text" }),
      el("p", {}, el("button", { type: "button", class: "md-button", onclick: () => (this.note.hidden = true) }, "Entendi")));
    this.section.querySelector(".exercise-toolbar--static")?.remove(); // the built page's stand-in
    anchor.before(bar, this.unavailable, this.note, this.output);
  }

  setBusy(busy, text = "") {
    this.busy = busy;
    for (const name of ["run", "verify", "reset"]) if (this.buttons[name]) this.buttons[name].disabled = busy;
    this.buttons.stop.hidden = !busy;
    if (text) this.status.textContent = text;
    // Parar replaced Python: the line says so until the new one is ready (onRuntimeState).
    else if (!busy && this.runtime.state === "restarting") this.status.textContent = RESTARTING;
  }

  onRuntimeState(state, detail) {
    if (!this.section.isConnected) return;
    if (state === "failed") {
      this.status.textContent = "O Python não iniciou.";
      this.showUnavailable(detail);
      return;
    }
    this.unavailable.hidden = true;
    if (state === "loading" || state === "restarting") this.status.textContent = this.waitText();
    else if (state === "ready" && !this.busy) this.status.textContent = "Python pronto.";
  }

  /** What the student waits for before Python can run a check. */
  waitText() {
    return this.runtime.state === "restarting" ? RESTARTING : "Carregando Python…";
  }

  /** Python could not start: what happened, what still works, and a way to try again. */
  showUnavailable(detail) {
    const why = detail ? ` (${detail})` : "";
    this.unavailable.querySelector(".exercise-unavailable__text").textContent =
      `Não foi possível iniciar o Python neste navegador${why}. Executar e Verificar dependem dele; ` +
      "o resto continua funcionando: você pode ler a lição, escrever seu código e suas respostas " +
      "(guardados neste navegador) e usar “Exportar respostas”.";
    this.unavailable.hidden = false;
  }

  retryPython() {
    this.unavailable.hidden = true;
    this.status.textContent = "Carregando Python…";
    this.runtime.start().catch(() => {}); // a new failure shows this message again
  }

  // --- results ------------------------------------------------------------------------

  mountResults() {
    const list = this.section.querySelector(".exercise-criteria");
    // Above the criteria, built into the page one line high (sitebuild/exercise_fence.py): the
    // first verdict fills it without moving them.
    this.summary = this.section.querySelector(".exercise-summary") ??
      el("p", { class: "exercise-summary", role: "status", "aria-live": "polite" });
    this.staleNote = el("p", { class: "exercise-stale", hidden: true }, STALE_TEXT.run);
    this.disk = el("details", { class: "exercise-disk", hidden: true },
      el("summary", {}, "O que ficou em disco na queda simulada"),
      el("p", { class: "exercise-disk__crash" }),
      el("pre", { class: "exercise-disk__content", tabindex: "0" }));
    this.timelineBox = el("section", { class: "exercise-timeline", hidden: true, "aria-labelledby": `linha-${this.id}-titulo` },
      el("p", { class: "exercise-timeline__title", id: `linha-${this.id}-titulo` }, el("strong", {}, "Linha do tempo das quedas simuladas")),
      el("div", { class: "crash-timeline" }));
    this.solution = el("div", { class: "exercise-solution", hidden: true },
      el("button", { type: "button", class: "md-button", onclick: () => this.revealSolution() }, "Ver a solução de referência"));
    const title = this.section.querySelector(".exercise-criteria__title");
    if (!this.summary.isConnected) title.before(this.summary);
    title.before(this.staleNote); // hidden until results are outdated
    list.after(this.disk, this.timelineBox, this.solution);
    // Notes that come after a tap (keeping the work, mountToolbar) go last: nothing above them moves.
    this.solution.after(this.note);
  }

  /** Whether the code criteria may explain themselves: the rule of graders.grading.diagnosis_open,
   * applied again to a verdict saved before it. An exercise whose questions diagnose its starter
   * (`feedback_after_questions` in exercise.toml) keeps the code's explanations, disk views and
   * timeline closed until every question's criterion is answered right or its answer revealed. */
  codeFeedbackOpen(verdict) {
    if (!this.data.feedbackAfterQuestions) return true;
    const byId = new Map(verdict.criteria.map((c) => [c.id, c]));
    return [...this.asked].every((id) => byId.get(id)?.passed || byId.get(id)?.revealed);
  }

  setCriterion(li, criterion) {
    const state = criterion.passed ? "ok" : "falhou";
    const id = li.dataset.criterion;
    const closed = !this.asked.has(id) && !this.feedbackOpen;
    li.dataset.state = state;
    // The full criterion states the answer: it replaces the neutral title only once the student
    // answered it right or chose to see it (an older verdict may carry labels for every criterion).
    const label = li.querySelector(".exercise-criterion__label");
    if (criterion.label && (criterion.passed || criterion.revealed) && !closed) label.replaceChildren(richText(criterion.label));
    else label.innerHTML = this.titles.get(id);
    li.querySelector(".exercise-criterion__state").textContent = STATE_TEXT[state];
    li.querySelectorAll(".exercise-criterion__message, .exercise-criterion__answer, .exercise-criterion__reveal").forEach((m) => m.remove());
    let text = state === "falhou" ? criterion.message : criterion.hint;
    if (closed) text = state === "falhou" ? CLOSED_FEEDBACK : null;
    // One block per question: the grader starts each with "Pergunta N:" (graders/judge/answers.py).
    if (text) li.append(...text.split(/\s+(?=Pergunta \d+: )/).map((block) => el("p", { class: "exercise-criterion__message" }, richText(block))));
    if (criterion.revealed && criterion.answer) {
      li.append(el("div", { class: "exercise-criterion__answer" },
        el("p", {}, el("strong", {}, "Resposta"), " (revelada a seu pedido; isso fica registrado no que você exportar):"),
        ...criterion.answer.split("\n").map((line) => el("p", {}, richText(line)))));
    } else if (state === "falhou" && this.asked.has(id) && this.attempted.has(id) && !this.revealed.has(id)) {
      // After a real attempt, the student may choose to see the answer: an explicit, recorded choice.
      li.append(el("p", { class: "exercise-criterion__reveal" },
        el("button", { type: "button", class: "md-button", onclick: () => this.reveal(id) }, "Mostrar a resposta"),
        " Fica registrado no seu progresso e no arquivo que você exportar."));
    }
  }

  /** Results of an earlier run stay on screen, visibly marked as such, until the next verdict. */
  markStale(stale, why = "run") {
    this.section.dataset.stale = String(stale);
    this.staleWhy = stale ? why : null;
    this.staleNote.textContent = STALE_TEXT[why];
    this.staleNote.hidden = !stale || !this.checked;
  }

  /** What a verdict was given for: the code and the answers (a short fingerprint, kept with the record). */
  inputsKey() {
    return fingerprint(JSON.stringify([this.code(), this.answers()]));
  }

  /** Marks the results old the moment the code or an answer differs from what they were given for. */
  checkStale() {
    if (this.busy || !this.verdictOf || this.staleWhy === "error") return;
    const changed = this.inputsKey() !== this.verdictOf;
    if (changed) this.markStale(true, "edit");
    else if (this.staleWhy === "edit") this.markStale(false); // back to exactly what was verified (Ctrl+Z)
  }

  renderVerdict(verdict, { restored = false } = {}) {
    this.checked = true;
    this.feedbackOpen = this.codeFeedbackOpen(verdict);
    let firstDisk = null;
    for (const c of verdict.criteria) {
      const li = this.criteria.get(c.id);
      if (!li) continue;
      this.setCriterion(li, c);
      if (!c.passed && c.disk && !firstDisk) firstDisk = c.disk;
    }
    const passed = verdict.criteria.filter((c) => c.passed).length;
    const total = verdict.criteria.length;
    const when = restored ? " na última vez que você verificou" : "";
    if (verdict.passed && passed === total) this.summary.textContent = total === 1 ? "A verificação passou." : "Todas as verificações passaram.";
    else if (total === 1) this.summary.textContent = `A verificação não passou${when}.`;
    else this.summary.textContent = `${passed} de ${total} verificações passaram${when}.`;
    this.summary.dataset.state = verdict.passed ? "ok" : "falhou";
    this.renderModels(verdict.writings);
    this.markStale(false);
    // The timeline shows every crash with its disk view; the single disk panel is for the others.
    // The disk panel is for a simulated crash; Nível 1's disk views are in the messages already.
    const open = this.feedbackOpen;
    this.renderDisk(!open || verdict.timeline || !firstDisk?.crash?.startsWith("Queda") ? null : firstDisk);
    this.renderTimeline(open ? verdict.timeline : null);
    this.solution.hidden = !(verdict.passed && this.data.starter != null);
  }

  renderTimeline(timeline) {
    this.timelineBox.hidden = !timeline?.points?.length;
    if (this.timelineBox.hidden) return;
    renderTimeline(this.timelineBox.querySelector(".crash-timeline"), timeline, { prefix: `linha-${this.id}` });
  }

  renderDisk(disk) {
    this.disk.hidden = !disk;
    if (!disk) return;
    this.disk.querySelector(".exercise-disk__crash").textContent = disk.crash;
    this.disk.querySelector(".exercise-disk__content").textContent = disk.exists
      ? (disk.content || "(arquivo vazio: 0 bytes)")
      : `(não havia nenhum ${disk.path} em disco)`;
    this.disk.open = true;
  }

  showError(text) {
    this.checked = true;
    this.summary.replaceChildren(richText(text));
    this.summary.dataset.state = "falhou";
  }

  /** A Verificar that gave no verdict (time limit, Parar, an error): the message replaces the summary,
   * and the previous run's crash views go, so nothing under the message passes for this code's result. */
  showFailedCheck(text) {
    this.showError(text);
    this.renderDisk(null);
    this.timelineBox.hidden = true;
    this.markStale(true, "error");
  }

  showNote(text) {
    if (!this.section.isConnected) return;
    this.note.querySelector(".exercise-note__text").textContent = text;
    this.note.hidden = false;
  }

  alert(text) {
    this.alertBox.textContent = text;
    this.alertBox.hidden = false;
  }

  explain(error) {
    if (error.kind === "timeout") {
      return `A execução passou de ${Math.round(this.runtime.timeLimitMs / 1000)} s e foi interrompida: o código ` +
        "provavelmente entra em um laço infinito (um while sem saída, por exemplo). Seu código continua no editor.";
    }
    if (error.kind === "stopped") return "Execução interrompida. Seu código continua no editor.";
    if (error.kind === "unsupported") return `Não dá para executar Python neste navegador: ${error.message}. Seu código continua no editor.`;
    return `O Python do navegador falhou (${error.message}). Tente de novo; se persistir, recarregue a página.`;
  }

  // --- actions ------------------------------------------------------------------------

  async verify() {
    if (this.busy) return;
    const origin = document.activeElement;
    this.saveNow();
    this.output.hidden = true;  // an earlier Executar's output is not this verdict's
    this.output.replaceChildren();
    this.markStale(true);
    this.setBusy(true, this.runtime.state === "ready" ? "Verificando…" : this.waitText());
    const answered = this.answeredCriteria();
    const inputs = this.inputsKey();
    try {
      const reply = await this.runtime.call({
        action: "grade", exercise: this.id, code: this.code(), answers: this.answers(), texts: this.texts({ shown: true }),
        revealed: [...this.revealed] });
      if (!reply.ok) {
        this.showFailedCheck(reply.error);
        return;
      }
      answered.forEach((id) => this.attempted.add(id));
      this.renderVerdict(reply.verdict);
      this.verdictOf = inputs;
      this.shownVerdict = JSON.stringify(reply.verdict);
      this.saveMeta({ passed: reply.verdict.passed, lastVerdict: reply.verdict, verdictOf: inputs,
        attempted: [...this.attempted] });
      this.status.textContent = "Verificação concluída.";
    } catch (error) {
      this.showFailedCheck(this.explain(error));
      this.status.textContent = "";
    } finally {
      this.setBusy(false);
      this.checkStale(); // typed while the check ran: the new verdict is already behind
      this.returnFocus(origin, this.buttons.verify);
      this.bringIntoView(this.summary);
    }
  }

  /** Scroll `target` (the summary) to just under the sticky header when it is not all on screen;
   * the focus stays where it is (in the editor after Ctrl+Enter): scrolling never moves it. */
  bringIntoView(target) {
    if (!this.section.isConnected || target.hidden) return;
    const rect = target.getBoundingClientRect();
    const top = headerBottom();
    if (rect.top >= top && rect.bottom <= window.innerHeight) return;
    window.scrollBy({ top: rect.top - top, behavior: "instant" });
  }

  /** After a run, focus goes back where the student was (the button they pressed), not to <body>. */
  returnFocus(origin, fallback) {
    const lost = !document.activeElement || document.activeElement === document.body;
    if (!lost || !this.section.isConnected) return;
    const target = origin && origin !== document.body && this.section.contains(origin) ? origin : fallback;
    target?.focus();
  }

  async run() {
    if (this.busy) return;
    const origin = document.activeElement;
    this.saveNow();
    // Executar gives no verdict: the results stay current unless the code differs (checkStale).
    this.setBusy(true, this.runtime.state === "ready" ? "Executando…" : this.waitText());
    try {
      const reply = await this.runtime.call({ action: "run", exercise: this.id, code: this.code() });
      this.renderRun(reply.run);
      this.status.textContent = "Execução concluída.";
    } catch (error) {
      this.renderRun({ ok: false, stdout: "", error: this.explain(error), summary: "", checkpoint: null });
      this.status.textContent = "";
    } finally {
      this.setBusy(false);
      this.returnFocus(origin, this.buttons.run);
    }
  }

  renderRun(run) {
    const parts = [el("p", { class: "exercise-output__title" }, el("strong", {}, "Saída de “Executar”"))];
    if (run.summary) parts.push(el("p", {}, run.summary));
    if (run.stdout) parts.push(el("p", {}, "O que o código imprimiu:"), el("pre", { class: "exercise-output__stdout", tabindex: "0" }, run.stdout));
    if (run.error) {
      parts.push(run.error.startsWith("Traceback")
        ? el("pre", { class: "exercise-output__error", tabindex: "0" }, run.error)
        : el("p", { class: "exercise-output__error" }, richText(run.error)));
      if (run.error_line && this.editor) {
        parts.push(el("button", { type: "button", class: "md-button", onclick: () => this.editor.goToLine(run.error_line) },
          `Ir para a linha ${run.error_line} no editor`));
      }
    }
    if (run.checkpoint) {
      parts.push(el("p", {}, `${run.checkpoint.path} no fim (${run.checkpoint.bytes} bytes):`),
        el("pre", { class: "exercise-output__checkpoint", tabindex: "0" }, run.checkpoint.content));
    } else if (run.ok) {
      parts.push(el("p", {}, "Nenhum checkpoint.json foi gravado."));
    }
    this.output.replaceChildren(...parts);
    this.output.hidden = false;
  }

  reset() {
    if (!window.confirm("Voltar ao código inicial deste exercício? Dá para desfazer com Ctrl+Z no editor.")) return;
    this.editor.setText(this.data.starter);
    this.saveNow();
    this.status.textContent = "Código inicial restaurado. Ctrl+Z no editor desfaz.";
    this.editor.focus();
  }

  download() {
    download(`${this.id}.py`, this.code(), "text/x-python;charset=utf-8");
  }

  /** "Mostrar a resposta": recorded first (record and export), then shown by a new verdict. */
  async reveal(criterion) {
    if (this.busy || !this.attempted.has(criterion)) return;
    // Asked once, before anything is recorded: a tap by mistake records nothing.
    if (!window.confirm("Mostrar a resposta deste critério? Isso fica registrado no seu progresso e no arquivo que você exportar.")) return;
    this.revealed.add(criterion);
    this.saveMeta({ revealed: [...this.revealed] });
    await this.verify();
    this.criteria.get(criterion)?.querySelector(".exercise-criterion__answer")?.setAttribute("tabindex", "-1");
    this.criteria.get(criterion)?.querySelector(".exercise-criterion__answer")?.focus();
  }

  async revealSolution() {
    try {
      const reply = await this.runtime.call({ action: "solution", exercise: this.id });
      if (!reply.ok || !reply.solution) return;
      this.solution.replaceChildren(
        el("p", {}, el("strong", {}, "Solução de referência"), " — compare com a sua; há mais de um jeito certo."),
        el("pre", { class: "exercise-solution__code", tabindex: "0" }, reply.solution));
    } catch (error) {
      this.status.textContent = this.explain(error);
    }
  }

  // --- persistence ----------------------------------------------------------------------

  scheduleSave() {
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => this.saveNow(), SAVE_DELAY_MS);
  }

  fields() {
    const fields = { answers: this.answers() };
    if (this.questions.length) fields.order = this.order;
    if (this.revealed.size) fields.revealed = [...this.revealed];
    if (this.writings.length) {
      fields.texts = this.texts();
      fields.hiddenTexts = this.hiddenTexts();
    }
    if (this.editor) fields.code = this.code();
    return fields;
  }

  /** Typed or ticked here and not saved yet. */
  dirty() {
    return JSON.stringify(this.fields()) !== this.lastSaved;
  }

  /** Fields that are not the student's work (a verdict, a reveal): saved over whatever version is
   * stored; this tab's version number moves on only if it already showed the stored one. */
  saveMeta(fields) {
    const before = storage.peek(this.id).record?.rev;
    const saved = storage.save(this.id, fields);
    if (saved && before === this.rev) this.rev = saved.rev;
  }

  saveNow() {
    clearTimeout(this.saveTimer);
    // Also after instant navigation detached the section: its inputs still hold the answers.
    const fields = this.fields();
    const text = JSON.stringify(fields);
    if (text === this.lastSaved) return;
    const stored = storage.peek(this.id);
    const cleared = this.hadRecord && stored.raw == null;
    // Another tab saved this exercise since this one last read it, and this tab has changes too:
    // both versions are kept (the other one aside) and both tabs say so.
    const both = stored.record && stored.record.rev !== this.rev && !sameWork(stored.record, fields);
    const conflict = both ? storage.putAside(this.id, stored.raw) : null;
    if (both && !conflict) {
      // The other version could not be kept aside (storage full or refused): saving would erase it.
      if (!this.warnedConflict) {
        this.warnedConflict = true;
        this.alert("Outra aba guardou uma versão diferente deste exercício, e o navegador não deixou guardar as duas " +
          "(armazenamento cheio ou bloqueado): a versão desta aba não foi guardada, para não apagar a outra. Ela " +
          "continua aqui até você fechar a aba; para guardar uma cópia, use “Baixar .py”.");
      }
      return;
    }
    const saved = storage.save(this.id, conflict ? { ...fields, conflict: { aside: conflict, at: new Date().toISOString() } } : fields);
    if (saved) {
      this.lastSaved = text;
      this.hadRecord = true;
      this.rev = saved.rev;
      if (conflict) this.showConflict(saved.conflict);
      if (cleared) {
        this.alert("O navegador apagou o que esta página tinha guardado deste exercício (alguns apagam os dados de um " +
          "site depois de dias sem visita, ou quando alguém limpa os dados de navegação). O que está na tela continua " +
          "aqui e acaba de ser guardado de novo; para ter uma cópia, use “Exportar respostas”.");
      }
      workSaved((notice) => this.showNote(notice));
    } else if (!this.warnedUnsaved) {
      this.warnedUnsaved = true;
      this.alert("Este navegador não deixou a página guardar seu trabalho (armazenamento bloqueado ou cheio). " +
        "Ele continua aqui até você fechar a aba; para guardar uma cópia, use “Baixar .py” ou “Exportar respostas”.");
    }
  }

  // --- other tabs ---------------------------------------------------------------------------

  /** Another tab saved this exercise: show its version, unless this tab has unsaved changes of its
   * own (then saving them now keeps the other version aside and tells the student). */
  onOtherTabSave() {
    if (!this.section.isConnected) return;
    const { record } = storage.peek(this.id);
    if (!record || record.rev === this.rev) return;
    if (this.dirty()) this.saveNow();
    else this.adopt(record);
  }

  /** Show a saved version of this exercise (another tab's) in place of what this tab shows. */
  adopt(record) {
    this.rev = record.rev;
    this.hadRecord = true;
    this.applyOptionOrder(record.order);
    this.restoreAnswers(record.answers ?? {});
    this.restoreTexts(record.texts ?? {});
    this.updateWritings();
    if (this.editor && typeof record.code === "string" && record.code !== this.code()) this.editor.setText(record.code);
    this.attempted = new Set(Array.isArray(record.attempted) ? record.attempted : []);
    this.revealed = new Set(Array.isArray(record.revealed) ? record.revealed : []);
    const verdict = JSON.stringify(record.lastVerdict ?? null);
    if (record.lastVerdict && verdict !== this.shownVerdict && !this.busy) {
      this.shownVerdict = verdict;
      this.renderVerdict(record.lastVerdict, { restored: true });
    }
    if (typeof record.verdictOf === "string") this.verdictOf = record.verdictOf;
    this.lastSaved = JSON.stringify(this.fields());
    clearTimeout(this.saveTimer); // the editor's change event must not save the adopted text back
    this.checkStale();
    this.showConflict(record.conflict);
  }

  showConflict(conflict) {
    this.conflict = conflict && typeof conflict.aside === "string" ? conflict : null;
    this.conflictBox.hidden = !this.conflict;
    if (!this.conflict) return;
    this.conflictBox.querySelector(".exercise-conflict__text").textContent =
      "Este exercício foi mudado em duas abas ao mesmo tempo. Nada se perdeu: esta aba mostra a versão " +
      "guardada por último, e a outra ficou guardada à parte neste navegador. Você pode trocar uma pela outra " +
      "(a que sai também fica guardada) ou ficar com esta.";
  }

  /** Swap the version on screen with the one kept aside; the one leaving is kept aside in turn. */
  useOtherVersion() {
    const other = this.conflict && storage.readAside(this.conflict.aside);
    if (!other) {
      this.showConflict(null);
      this.alert("A outra versão não está mais guardada neste navegador.");
      return;
    }
    this.saveNow();
    const aside = storage.putAside(this.id, storage.peek(this.id).raw);
    if (!aside) {
      // The version on screen could not be kept aside: swapping would erase it.
      this.alert("O navegador não deixou guardar a versão desta aba à parte (armazenamento cheio ou bloqueado): " +
        "a troca não foi feita, para não apagá-la.");
      return;
    }
    const work = Object.fromEntries(WORK_FIELDS.filter((f) => f in other).map((f) => [f, other[f]]));
    const saved = storage.save(this.id, { ...work, conflict: { aside, at: new Date().toISOString() } });
    if (saved) this.adopt(saved);
  }

  keepThisVersion() {
    this.saveNow();
    const saved = storage.save(this.id, { conflict: undefined });
    if (saved) this.adopt(saved);
    else this.showConflict(null);
  }
}

// What a tab's version of an exercise is made of (the rest, verdicts and marks, follows from it).
const WORK_FIELDS = ["answers", "code", "texts", "hiddenTexts", "order", "revealed"];

function sameWork(record, fields) {
  const pick = (source) => JSON.stringify(["answers", "code", "texts"].map((f) => source[f] ?? null));
  return pick(record) === pick(fields);
}

/** Save every widget of the page now (before an export or when the tab goes away). */
export function flushAll() {
  for (const widget of mounted) widget.saveNow();
}
document.addEventListener("lesson:flush", flushAll);

/** Mount the exercises of the page that are not mounted yet (or only those of `only`); start Python
 * when one nears the screen. */
export async function mountAll(root = document, only = null) {
  for (const widget of [...mounted]) if (!widget.section.isConnected) widget.dispose();
  const sections = [...root.querySelectorAll("section.exercise:not([data-mounted])")]
    .filter((section) => !only || only.includes(section));
  for (const [index, section] of sections.entries()) {
    // One exercise per task: a tap between two mounts is answered at once.
    if (index) await yieldToMain();
    if (section.dataset.mounted || !section.isConnected) continue;
    try {
      new ExerciseWidget(section).mount();
    } catch (error) {
      showBrokenExercise(section, error); // the others still mount
    }
  }
  if (!sections.length) return;
  const runtime = sharedRuntime();
  const start = () => runtime.start().catch(() => {});
  // Python has usually started already (main.js); on a slow line or with Save-Data, it starts
  // when an exercise nears the screen.
  const observer = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) {
      start();
      observer.disconnect();
    }
  }, { rootMargin: NEAR_SCREEN });
  sections.forEach((s) => observer.observe(s));
}
