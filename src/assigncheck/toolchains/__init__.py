"""The outside toolchains assigncheck drives, each cached under `$XDG_CACHE_HOME/assigncheck/`: Maven for Kafka's
jars (`maven`), javac for the Java drivers (`java_build`), and the process reaper that ends whatever any of them, or
a target, leaves running (`reaper`)."""
