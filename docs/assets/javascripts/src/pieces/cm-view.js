// One piece of the editor bundle (make editor): @codemirror/view, evaluated in a task of its own.
export * from "@codemirror/view";
