"""Live groups: the spec checked on real consumer groups, on a real Kafka broker, with real clients."""
