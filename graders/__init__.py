"""Behavioural graders for the lesson exercises (standard library only: they also run in Pyodide)."""
