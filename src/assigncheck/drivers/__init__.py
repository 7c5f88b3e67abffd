"""The programs assigncheck ships in other languages, as sources its toolchains build on first use: the Java bridge
that drives a `java:` target's class (package `io.assigncheck.bridge`), and the Java live-group member (package
`io.assigncheck.live`). They read their sources from here, in the installed package as in the clone.

`JAVA` is a Maven project: `mvn -f JAVA/pom.xml compile` compiles every source with every javac lint as an error,
against the Kafka version the project pins (`make test` runs it)."""

from pathlib import Path

JAVA = Path(__file__).with_name("java")
_SOURCES = JAVA / "src" / "main" / "java" / "io" / "assigncheck"
JAVA_BRIDGE = _SOURCES / "bridge"
JAVA_LIVE = _SOURCES / "live"
# The JSON reader and writer of every Java driver (the bridge's, and the live member's quoting).
JAVA_JSON = JAVA_BRIDGE / "AssigncheckJson.java"
# The classes `java` starts.
BRIDGE_MAIN = "io.assigncheck.bridge.AssigncheckBridge"
LIVE_MAIN = "io.assigncheck.live.LiveMember"

__all__ = ["BRIDGE_MAIN", "JAVA", "JAVA_BRIDGE", "JAVA_JSON", "JAVA_LIVE", "LIVE_MAIN"]
