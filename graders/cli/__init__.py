"""The command line: grading a class on an instructor's machine, each submission in a sandbox of its own.
One way through: `collect` (files and folders, and what is ignored) → `main` (reading, the batch, Ctrl+C;
student code runs in graders.sandbox, the floor below) → `classreport` (students, scores, summary; with `identity`,
`roster`, `copies`, `metadata`) → one renderer of `formats` per --format. `report` cleans results."""
