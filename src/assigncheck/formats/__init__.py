"""The formats assigncheck reads and writes: problem and assignment JSON documents (`documents`), the bounded,
strict JSON reader behind them (`json_input`), Kafka's consumer-protocol wire format (`wire`) and reproducer
files (`reproducer`)."""
