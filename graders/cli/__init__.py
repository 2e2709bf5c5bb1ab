"""The command line: grading submissions on an instructor's machine, each in a sandbox of its own
(`main`: options and the batch; `sandbox`: where student code runs)."""
