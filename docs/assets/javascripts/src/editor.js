// Entry of the CodeMirror bundle (docs/assets/javascripts/vendor/codemirror.min.js).
// Rebuilt by `make editor`; the site ships the built file, so no Node is needed to serve it.
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection } from "@codemirror/view";
import { EditorState, Compartment } from "@codemirror/state";
import { defaultKeymap, history, historyKeymap, indentWithTab, isolateHistory } from "@codemirror/commands";
import { bracketMatching, indentOnInput, indentUnit, syntaxHighlighting, defaultHighlightStyle } from "@codemirror/language";
import { python } from "@codemirror/lang-python";
import { oneDark } from "@codemirror/theme-one-dark";

const lightTheme = [syntaxHighlighting(defaultHighlightStyle, { fallback: true })];

/**
 * A Python editor. `label` names it for screen readers; `onChange(text)` fires on edits;
 * `onSubmit()` on Ctrl/Cmd+Enter. Tab indents; Escape then Tab leaves the editor.
 */
export function createEditor(parent, { doc = "", label = "Editor de código", dark = false, onChange, onSubmit } = {}) {
  const theme = new Compartment();
  const submitKeys = keymap.of([{ key: "Mod-Enter", run: () => { onSubmit?.(); return true; } }]);
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        drawSelection(),
        history(),
        indentOnInput(),
        indentUnit.of("    "),
        bracketMatching(),
        python(),
        submitKeys,
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        theme.of(dark ? oneDark : lightTheme),
        EditorView.contentAttributes.of({ "aria-label": label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange?.(update.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    getText: () => view.state.doc.toString(),
    setText(text) {
      // One isolated history event: Ctrl+Z brings back exactly the previous text.
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        annotations: isolateHistory.of("full"),
      });
    },
    setDark(isDark) {
      view.dispatch({ effects: theme.reconfigure(isDark ? oneDark : lightTheme) });
    },
    focus: () => view.focus(),
    goToLine(number) {
      const doc = view.state.doc;
      const line = doc.line(Math.min(Math.max(1, number), doc.lines));
      view.dispatch({ selection: { anchor: line.from, head: line.to }, scrollIntoView: true });
      view.focus();
    },
  };
}
