"""The programs assigncheck ships in other languages, as sources its toolchains build on first use: the Java bridge
that drives a `java:` target's class, and the Java live-group member. They read their sources from here, in the
installed package as in the clone."""

from pathlib import Path

JAVA = Path(__file__).with_name("java")  # a Maven project: `mvn -f JAVA/pom.xml compile` builds every source
_SOURCES = JAVA / "src" / "main" / "java" / "io" / "assigncheck"
JAVA_BRIDGE = _SOURCES / "bridge"
JAVA_LIVE = _SOURCES / "live"

__all__ = ["JAVA", "JAVA_BRIDGE", "JAVA_LIVE"]
