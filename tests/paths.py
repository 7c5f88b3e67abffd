"""Where the tests find the repository's files: the clone's root and the package's source folder."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the clone
PACKAGE = ROOT / "src" / "assigncheck"  # the package's sources, as the clone holds them
TESTS = ROOT / "tests"
