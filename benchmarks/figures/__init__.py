"""The docs' tables of measured figures, rendered from the results files (`benchmarks/results/*.json`).

A table in README.md or docs/*.md sits between `<!-- figures: NAME -->` and `<!-- /figures -->`; NAME is a table
of `tables.TABLES`, which says which results files it reads and how it lays their rows out, so a layout is defined
once, here, and never in a doc. Each rendered table is followed by a line naming the command, date, commit and
load of the runs it came from. `python -m benchmarks.figures` rewrites every such table; `--check` rewrites
nothing and exits 1 naming each table that disagrees with its results files.
"""
