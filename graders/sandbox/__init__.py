"""Where student code runs on an instructor's machine: one sandbox per worker (bubblewrap, or reduced
mode with Landlock and another user), handed out in file order. Used by `grading` and the CLI alike;
it imports only `trace` below it. `sandbox`: the Sandbox and its modes; `reduced`: the fences without
namespaces; `turns`: which waiting job gets the next free sandbox."""
