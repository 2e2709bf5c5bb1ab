// One piece of the editor bundle (make editor): @codemirror/state, evaluated in a task of its own.
export * from "@codemirror/state";
