"""pytest plugin (pytest11 entry point): check a project's own assignor inside its test suite."""
