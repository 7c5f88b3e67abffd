"""The bug zoo: real historical assignor bugs rebuilt as broken variants of the project's assignors.

Each `kafka_NNNNN.py` (and `librdkafka_4783.py`) exposes `Assignor`, loadable as an outside target
(`assigncheck gate --target benchmarks.zoo.kafka_14639:Assignor`), declaring the promises of the
assignor it breaks; its docstring names the JIRA id and the input shape that triggers it.
`measure.py` runs the gate's stages on every entry; `ZOO` lists them.
"""

ZOO: tuple[str, ...] = (
    "kafka_3661",
    "kafka_7026",
    "kafka_7962",
    "kafka_10082",
    "kafka_12984",
    "kafka_13406",
    "kafka_14639",
    "kafka_15106",
    "kafka_15170",
    "kafka_16277",
    "kafka_16930",
    "kafka_18688",
    "librdkafka_4783",
)


def target_spec(module: str) -> str:
    """The `--target` string of one zoo entry."""
    return f"benchmarks.zoo.{module}:Assignor"
