"use strict";
// The `cluster` a KafkaJS assigner is created with, answering from a problem document as a KafkaJS consumer's own
// cluster answers from its cached metadata (kafkajs/src/cluster/index.js, 2.2.4).
//
// A KafkaJS consumer fetches the metadata of its own target topics only (the topics it subscribed to, plus any an
// assigner adds with `addTargetTopic`/`addMultipleTargetTopics`): the leader's `findTopicPartitionMetadata` answers
// `[]` for a topic only other members subscribe to until the assigner adds it. A topic the problem does not list is
// one the metadata does not know: `[]` too.
//
// Brokers: one per replica rack the problem names (`partition_racks`), numbered in rack order, and broker 0 for
// partitions whose racks are not given; a partition's leader is its first replica. Partitions are listed in
// ascending order, as a broker's metadata lists them.

const { KafkaJSError } = require("kafkajs");

function brokersOf(problem) {
  const racks = new Set();
  for (const perPartition of Object.values(problem.partition_racks || {})) {
    for (const replicaRacks of perPartition) for (const rack of replicaRacks) racks.add(rack);
  }
  const brokers = [{ nodeId: 0, host: "broker-0", port: 9092, rack: null }];
  for (const rack of [...racks].sort()) {
    brokers.push({ nodeId: brokers.length, host: `broker-${brokers.length}`, port: 9092, rack });
  }
  return brokers;
}

function partitionMetadata(problem, brokers, topic) {
  const byRack = new Map(brokers.filter((b) => b.rack !== null).map((b) => [b.rack, b.nodeId]));
  const racks = (problem.partition_racks || {})[topic];
  const out = [];
  for (let partitionId = 0; partitionId < problem.topics[topic]; partitionId++) {
    const given = racks ? racks[partitionId].map((rack) => byRack.get(rack)) : [];
    const replicas = given.length > 0 ? given : [0];
    out.push({ partitionErrorCode: 0, partitionId, leader: replicas[0], replicas, isr: replicas,
      offlineReplicas: [] });
  }
  return out;
}

const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

// The simulated cluster of a consumer subscribed to `subscription`.
function simulatedCluster(problem, subscription) {
  const brokers = brokersOf(problem);
  const targetTopics = new Set(subscription);
  let topicMetadata = [];
  const refresh = () => {
    topicMetadata = [...targetTopics].filter((topic) => has(problem.topics, topic))
      .map((topic) => ({ topicErrorCode: 0, topic, partitionMetadata: partitionMetadata(problem, brokers, topic) }));
  };
  refresh();

  const cluster = {
    isConnected: () => true,
    async connect() {},
    async disconnect() {},
    async refreshMetadata() { refresh(); },
    async refreshMetadataIfNecessary() { refresh(); },
    async addTargetTopic(topic) { return cluster.addMultipleTargetTopics([topic]); },
    async addMultipleTargetTopics(topics) {
      for (const topic of topics) targetTopics.add(topic);
      refresh();
    },
    async metadata({ topics = [] } = {}) {
      const wanted = topics.length > 0 ? topics : Object.keys(problem.topics);
      return {
        brokers: brokers.map(({ nodeId, host, port, rack }) => ({ nodeId, host, port, rack })),
        topicMetadata: wanted.filter((topic) => has(problem.topics, topic))
          .map((topic) => ({ topicErrorCode: 0, topic, partitionMetadata: partitionMetadata(problem, brokers, topic) })),
      };
    },
    getNodeIds: () => brokers.map((b) => String(b.nodeId)),
    findTopicPartitionMetadata(topic) {
      const found = topicMetadata.find((t) => t.topic === topic);
      return found ? found.partitionMetadata : [];
    },
    findLeaderForPartitions(topic, partitions) {
      const metadata = cluster.findTopicPartitionMetadata(topic);
      const byLeader = {};
      for (const id of partitions) {
        const partitionId = parseInt(id, 10);
        const found = metadata.find((p) => p.partitionId === partitionId);
        if (!found) continue;
        (byLeader[found.leader] = byLeader[found.leader] || []).push(partitionId);
      }
      return byLeader;
    },
  };
  return new Proxy(cluster, {
    get(target, key) {
      if (typeof key !== "string" || has(target, key) || key === "then" || key === "toJSON") return target[key];
      throw new KafkaJSError(`assigncheck's simulated KafkaJS cluster has no \`${key}\` (it has: ` +
        `${Object.keys(target).join(", ")}); a consumer's cluster connects to brokers, this one answers from ` +
        "the problem's metadata", { retriable: false });
    },
  });
}

module.exports = { simulatedCluster };
