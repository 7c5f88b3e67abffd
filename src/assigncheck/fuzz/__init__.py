"""atheris (libFuzzer): fuzzer bytes decoded into problems (`decode`), the harnesses that run an assignor or a
wire decoder on them (`harness`), one fuzzing job (`runner`) and the jobs of `assigncheck fuzz` (`jobs`),
findings triaged into minimized reproducers (`triage`). `vectors/`: the regression vectors, the seed corpus."""
