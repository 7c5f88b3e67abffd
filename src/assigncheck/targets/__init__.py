"""How any assignor is loaded and called: the built-ins by name, and anyone else's unmodified (`registry.load_target`
turns a `--target` spec into an assignor): a Python object, a `cmd:`/`cmd2:` program over JSON lines (`command`),
kafka-python's and aiokafka's assignors (`python_libs`), a `java:` class through our bridge (`java`), and any of
them in a worker process of its own (`worker`)."""
