// Entry of the CodeMirror bundle (docs/assets/javascripts/vendor/codemirror/editor.js, with its pieces).
// Rebuilt by `make editor`; the site ships the built files, so no Node is needed to serve it.
import { EditorView, ViewPlugin, Decoration, WidgetType, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection } from "@codemirror/view";
import { EditorState, Compartment, RangeSetBuilder } from "@codemirror/state";
import { defaultKeymap, history, historyKeymap, indentWithTab, isolateHistory } from "@codemirror/commands";
import { bracketMatching, indentOnInput, indentUnit, syntaxHighlighting, syntaxTree, defaultHighlightStyle, HighlightStyle } from "@codemirror/language";
import { python } from "@codemirror/lang-python";
import { oneDarkTheme, oneDarkHighlightStyle } from "@codemirror/theme-one-dark";

/** A stock highlight style with some colours swapped (`{old: new}`), the rest untouched. */
function recolour(style, swaps) {
  return HighlightStyle.define(style.specs.map((spec) => (spec.color in swaps ? { ...spec, color: swaps[spec.color] } : spec)));
}

// The stock colours below 4.5:1 (WCAG AA) on their backgrounds, including the active line,
// get a shade that passes: escapes and invalid tokens on white; in One Dark, the coral
// (names), violet (keywords) and stone (comments, line numbers).
const lightTheme = [syntaxHighlighting(recolour(defaultHighlightStyle, { "#e40": "#c03000", "#f00": "#c00" }), { fallback: true })];
const darkTheme = [
  EditorView.theme({ ".cm-gutters": { color: "#949cad" } }, { dark: true }), // before One Dark: it wins
  oneDarkTheme,
  syntaxHighlighting(recolour(oneDarkHighlightStyle, { "#e06c75": "#ef8a91", "#c678dd": "#cd8ae2", "#7d8799": "#949cad" })),
];

/** Columns of a line's leading indentation (tabs to the next tab stop). */
function indentColumns(text, tabSize) {
  let column = 0;
  for (const ch of text) {
    if (ch === " ") column += 1;
    else if (ch === "\t") column += tabSize - (column % tabSize);
    else break;
  }
  return column;
}

// A wrapped line continues under its own first character, not at column 0: in Python the indentation
// is the structure, and a wrapped line that restarts at the margin reads as unindented code.
const hangingDecorations = new Map();
function hanging(columns) {
  if (!hangingDecorations.has(columns)) {
    hangingDecorations.set(columns, Decoration.line({ class: "cm-hanging", attributes: { style: `--hang: ${columns}ch` } }));
  }
  return hangingDecorations.get(columns);
}

// Where a wrapped line of code may break. A browser breaks text where prose breaks (after spaces)
// and, in a word wider than the row, anywhere; code is not prose:
// - the spaces of the indentation must never end a row, or a line whose first token is long shows
//   its number beside an empty row and its code one row lower: the indentation and the first
//   character of the code share a span that does not wrap, so no break falls between them;
// - a long run such as `f.write(json.dumps({"messages":` has no space at all, so the browser cut it
//   inside a word ("mess" / "ages"): a <wbr> after each opening bracket and comma, and before each
//   `.` between names, outside strings and comments, gives it better places first. A <wbr> has no
//   text: selections, copies and screen readers read the code as it is.
class BreakPoint extends WidgetType {
  eq() {
    return true;
  }

  toDOM() {
    return document.createElement("wbr");
  }

  ignoreEvent() {
    return false;
  }
}
const holdIndent = Decoration.mark({ class: "cm-hold-indent" });
const breakPoint = Decoration.widget({ widget: new BreakPoint(), side: 1 });
const AFTER = new Set(["(", "[", "{", ","]);
const NAME = /[A-Za-z0-9_)\]]/;
const PROSE = /String|Comment/;

function inProse(tree, pos) {
  for (let node = tree.resolveInner(pos, 1); node; node = node.parent) if (PROSE.test(node.name)) return true;
  return false;
}

function wrapDecorations(view) {
  const builder = new RangeSetBuilder();
  const tree = syntaxTree(view.state);
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to;) {
      const line = view.state.doc.lineAt(pos);
      const text = line.text;
      const columns = indentColumns(text, view.state.tabSize);
      const indent = text.length - text.trimStart().length;
      if (columns && columns < line.length) builder.add(line.from, line.from, hanging(columns));
      if (indent && indent < text.length) builder.add(line.from, line.from + indent + 1, holdIndent);
      for (let i = indent; i < text.length - 1; i += 1) {
        const ch = text[i];
        const dot = ch === "." && NAME.test(text[i - 1] ?? "") && /[A-Za-z_]/.test(text[i + 1]);
        const before = AFTER.has(ch) ? i + 1 : dot ? i : -1;
        if (before <= indent || text[before] === " " || inProse(tree, line.from + i)) continue;
        builder.add(line.from + before, line.from + before, breakPoint);
      }
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

const hangingIndent = [
  ViewPlugin.fromClass(class {
    constructor(view) {
      this.decorations = wrapDecorations(view);
    }

    update(update) {
      if (update.docChanged || update.viewportChanged || syntaxTree(update.startState) !== syntaxTree(update.state)) {
        this.decorations = wrapDecorations(update.view);
      }
    }
  }, { decorations: (plugin) => plugin.decorations }),
  // The line's padding grows by its indentation and its first row moves back by as much.
  EditorView.baseTheme({
    ".cm-line.cm-hanging": { paddingLeft: "calc(var(--hang) + 6px)", textIndent: "calc(-1 * var(--hang))" },
    ".cm-hold-indent": { whiteSpace: "pre" },
  }),
];

/**
 * A Python editor. `label` names it for screen readers; `onChange(text)` fires on edits;
 * `onSubmit()` on Ctrl/Cmd+Enter. Tab indents; Escape then Tab leaves the editor.
 * `coveredTop()` gives the pixels at the top of the window hidden by a sticky header, so the
 * cursor (and "go to line") is never scrolled under it. Long lines wrap (no sideways scrolling
 * on a phone), each continuing at its own indentation.
 */
export function createEditor(parent, { doc = "", label = "Editor de código", dark = false, coveredTop = () => 0, onChange, onSubmit } = {}) {
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
        theme.of(dark ? darkTheme : lightTheme),
        EditorView.lineWrapping,
        hangingIndent,
        EditorView.scrollMargins.of(() => ({ top: coveredTop() })),
        // In the tab order explicitly, so the scrolling editor counts as reachable by keyboard.
        EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
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
      view.dispatch({ effects: theme.reconfigure(isDark ? darkTheme : lightTheme) });
    },
    focus: () => view.focus(),
    goToLine(number) {
      const doc = view.state.doc;
      const line = doc.line(Math.min(Math.max(1, number), doc.lines));
      // Centred: clear of the sticky header above and of whatever follows the editor.
      view.dispatch({
        selection: { anchor: line.from, head: line.to },
        effects: EditorView.scrollIntoView(line.from, { y: "center" }),
      });
      view.focus();
    },
  };
}
