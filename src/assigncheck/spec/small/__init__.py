"""The checker's fast path for small problems: plain-Python twins of the vectorized checks (`checks`), views
(`views`) and oracle figures (`oracle`), the same figures as `spec`'s definitions (held equal by
tests/test_small_twins.py and the twin tests beside it)."""
