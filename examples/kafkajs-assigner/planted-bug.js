"use strict";
// assigner.js with a bug planted: it fails the gate (`gate.test.js`).
const { AssignerProtocol: { MemberMetadata, MemberAssignment } } = require("kafkajs");

const PlantedBug = ({ cluster }) => ({
  name: "PlantedBug",
  version: 0,

  async assign({ members }) {
    // Each member's own subscription, from the metadata its protocol() encoded: KafkaJS's `topics` argument is
    // the leader's own subscription, not the group's.
    const subscriptions = new Map(members.map(({ memberId, memberMetadata }) =>
      [memberId, new Set(MemberMetadata.decode(memberMetadata).topics)]));
    const ids = [...subscriptions.keys()].sort();
    const topics = [...new Set(ids.flatMap((id) => [...subscriptions.get(id)]))].sort();
    // The planted bug: no call to cluster.addMultipleTargetTopics(topics). The leader's cluster knows the
    // partitions of the leader's own topics only, so a topic only other members consume is never handed out.

    const load = new Map(ids.map((id) => [id, 0]));
    const assignment = Object.fromEntries(ids.map((id) => [id, {}]));
    for (const topic of topics) {
      const subscribers = ids.filter((id) => subscriptions.get(id).has(topic));
      const partitions = cluster.findTopicPartitionMetadata(topic).map((p) => p.partitionId).sort((a, b) => a - b);
      for (const partition of partitions) {
        const member = subscribers.reduce((best, id) => (load.get(id) < load.get(best) ? id : best));
        (assignment[member][topic] ||= []).push(partition);
        load.set(member, load.get(member) + 1);
      }
    }
    return ids.map((memberId) => ({
      memberId,
      memberAssignment: MemberAssignment.encode({ version: this.version, assignment: assignment[memberId] }),
    }));
  },

  protocol({ topics }) {
    return { name: this.name, metadata: MemberMetadata.encode({ version: this.version, topics }) };
  },
});

module.exports = { PlantedBug };

if (require.main === module) require("assigncheck").serve(PlantedBug);
