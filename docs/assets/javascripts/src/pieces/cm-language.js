// One piece of the editor bundle (make editor): @codemirror/language, evaluated in a task of its own.
export * from "@codemirror/language";
