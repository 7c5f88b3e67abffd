"""Frozen copies of replaced implementations: the honest in-run peers of the benchmarks (never imported by
the package)."""
