"""Observing one run of student code from below Python: the operation format, the kernel tap (CLI),
the runner that loads the code, and the fake model and tools served by the trusted side."""
