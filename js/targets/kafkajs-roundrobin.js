// KafkaJS's built-in round-robin assigner (PartitionAssigners.roundRobin, the consumer's default), unmodified, as
// a `cmd2:` target: `assigncheck gate --target "cmd2:node js/targets/kafkajs-roundrobin.js"`.
const { PartitionAssigners } = require("kafkajs");
const { serve } = require("..");

serve(PartitionAssigners.roundRobin);
