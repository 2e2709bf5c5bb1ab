// One piece of the editor bundle (make editor): @codemirror/commands, evaluated in a task of its own.
export * from "@codemirror/commands";
