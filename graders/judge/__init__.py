"""Judging traced runs and answers: each criterion decided from the replayed crash states (code) or
the structured answers, never from what the student's process says about itself."""
