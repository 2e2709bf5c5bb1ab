// One piece of the editor bundle (make editor): @codemirror/lang-python, evaluated in a task of its own.
export * from "@codemirror/lang-python";
