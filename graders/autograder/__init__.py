"""Autograders for the platforms classes grade on (Gradescope, PrairieLearn, GitHub Classroom): each
one wraps the CLI (`python -m graders … --format json`) and turns its report into the platform's results file."""
