"use strict";
// A KafkaJS PartitionAssigner: each topic's partitions go, one by one, to the least loaded member subscribing to
// the topic (fewest partitions so far; the smallest member id on a tie). Give it to a consumer as
// `kafka.consumer({ groupId, partitionAssigners: [SubscriptionRoundRobin] })`; `node assigner.js` serves it to
// assigncheck (the last line).
const { AssignerProtocol: { MemberMetadata, MemberAssignment } } = require("kafkajs");

const SubscriptionRoundRobin = ({ cluster }) => ({
  name: "SubscriptionRoundRobin",
  version: 0,

  async assign({ members }) {
    // Each member's own subscription, from the metadata its protocol() encoded: KafkaJS's `topics` argument is
    // the leader's own subscription, not the group's.
    const subscriptions = new Map(members.map(({ memberId, memberMetadata }) =>
      [memberId, new Set(MemberMetadata.decode(memberMetadata).topics)]));
    const ids = [...subscriptions.keys()].sort();
    const topics = [...new Set(ids.flatMap((id) => [...subscriptions.get(id)]))].sort();
    // The leader's cluster holds the metadata of the leader's own topics only: fetch the other members' too.
    await cluster.addMultipleTargetTopics(topics);

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

module.exports = { SubscriptionRoundRobin };

if (require.main === module) require("assigncheck").serve(SubscriptionRoundRobin);
