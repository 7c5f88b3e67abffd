"""Outside targets: assignors that are not ours, checked unmodified (other libraries, other languages)."""
