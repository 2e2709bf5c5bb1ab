"""Rebuilding the disk from a trace: the folder model, the crash states of a killed process, and
what a power loss could leave (an explicit persistence model, as in ALICE and CrashMonkey)."""
