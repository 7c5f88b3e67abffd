"use strict";
// The leader simulation against KafkaJS's own code: what the leader's assigner is given, and how its plan is read.
const assert = require("node:assert");
const test = require("node:test");
const { AssignerProtocol: { MemberMetadata, MemberAssignment }, PartitionAssigners } = require("kafkajs");
const { lead } = require("..");

const problem = (members, topics = { t0: 2, t1: 2 }, more = {}) => ({ format: 1, topics, members, ...more });

// An assigner that records what each instance is given and hands every member what `plan` says.
function recorder(plan = () => []) {
  const seen = { created: [], assigned: [] };
  const factory = ({ cluster, groupId, logger }) => {
    seen.created.push({ groupId, logger });
    return {
      name: "Recorder",
      version: 3,
      async assign({ members, topics }) {
        seen.assigned.push({ members, topics, cluster });
        return plan({ members, topics, cluster });
      },
      protocol({ topics }) {
        return { name: this.name, metadata: MemberMetadata.encode({ version: this.version, topics,
          userData: Buffer.from(topics.join("+")) }) };
      },
    };
  };
  return { seen, factory };
}

const encode = (assignment) => MemberAssignment.encode({ version: 0, assignment });

test("the leader's assigner gets each member's own metadata, in the problem's order, and the leader's own topics", async () => {
  const { seen, factory } = recorder();
  await lead(factory, problem([{ id: "m2", subscription: ["t1", "t0"] }, { id: "m1", subscription: ["t1"] }]));
  assert.equal(seen.created.length, 2, "one assigner per member's consumer");
  assert.equal(typeof seen.created[0].logger.namespace, "function");
  assert.equal(seen.assigned.length, 1, "only the leader assigns");
  const [{ members, topics }] = seen.assigned;
  assert.deepEqual(topics, ["t1", "t0"], "the leader's subscription, in its order");
  assert.deepEqual(members.map((m) => m.memberId), ["m2", "m1"]);
  assert.deepEqual(members.map((m) => m.groupInstanceId), [null, null]);
  const decoded = members.map((m) => MemberMetadata.decode(m.memberMetadata));
  assert.deepEqual(decoded.map((d) => [d.version, d.topics, d.userData.toString()]),
    [[3, ["t1", "t0"], "t1+t0"], [3, ["t1"], "t1"]]);
  assert.ok(Buffer.isBuffer(members[0].memberMetadata));
});

test("a consumer keeps its topics as KafkaJS does: integer-like names first", async () => {
  const { seen, factory } = recorder();
  await lead(factory, problem([{ id: "m", subscription: ["b", "10", "a", "2"] }], { a: 1, b: 1, 2: 1, 10: 1 }));
  assert.deepEqual(seen.assigned[0].topics, ["2", "10", "b", "a"]);
});

test("the leader's cluster knows its own topics' partitions, and others' once the assigner adds them", async () => {
  const { seen, factory } = recorder();
  await lead(factory, problem([{ id: "m0", subscription: ["t0"] }, { id: "m1", subscription: ["t1", "gone"] }],
    { t0: 3, t1: 2 }));
  const { cluster } = seen.assigned[0];
  assert.deepEqual(cluster.findTopicPartitionMetadata("t0").map((p) => p.partitionId), [0, 1, 2]);
  assert.deepEqual(cluster.findTopicPartitionMetadata("t1"), []);
  await cluster.addMultipleTargetTopics(["t1", "gone"]);
  assert.deepEqual(cluster.findTopicPartitionMetadata("t1").map((p) => p.partitionId), [0, 1]);
  assert.deepEqual(cluster.findTopicPartitionMetadata("gone"), [], "a topic the problem does not list");
  assert.deepEqual(cluster.findLeaderForPartitions("t0", [0, 2, 7]), { 0: [0, 2] });
  assert.throws(() => cluster.findGroupCoordinator, /simulated KafkaJS cluster has no `findGroupCoordinator`/);
});

test("replicas are brokers of the problem's racks, the first one leading", async () => {
  const { seen, factory } = recorder();
  await lead(factory, problem([{ id: "m0", subscription: ["t0", "t1"], rack: "r1" }], { t0: 2, t1: 1 },
    { partition_racks: { t0: [["r2", "r1"], []], t1: [["r1"]] } }));
  const { cluster } = seen.assigned[0];
  assert.deepEqual(cluster.findTopicPartitionMetadata("t0").map((p) => [p.leader, p.replicas]), [[2, [2, 1]], [0, [0]]]);
  assert.deepEqual(cluster.getNodeIds(), ["0", "1", "2"]);
});

test("KafkaJS's round-robin deals the leader's topics to every member, subscribed or not", async () => {
  const leaderWithout = await lead(PartitionAssigners.roundRobin,
    problem([{ id: "a", subscription: ["t0"] }, { id: "b", subscription: ["t0", "t1"] }]));
  assert.deepEqual(leaderWithout.assignment, { a: { t0: [0] }, b: { t0: [1] } }, "t1 is handed to nobody");
  const leaderWith = await lead(PartitionAssigners.roundRobin,
    problem([{ id: "b", subscription: ["t0", "t1"] }, { id: "a", subscription: ["t1"] }]));
  assert.deepEqual(leaderWith.assignment, { b: { t0: [1], t1: [1] }, a: { t0: [0], t1: [0] } }, "a gets t0");
});

test("the broker keeps a member's last entry, gives nothing to a member left out or to a stranger", async () => {
  const { factory } = recorder(() => [
    { memberId: "m0", memberAssignment: encode({ t0: [0] }) },
    { memberId: "x", memberAssignment: encode({ t0: [1] }) },
    { memberId: "m0", memberAssignment: encode({ t0: [1], t1: [0, 1] }) },
  ]);
  const out = await lead(factory, problem([{ id: "m0", subscription: ["t0", "t1"] }, { id: "m1", subscription: ["t0"] }]));
  assert.deepEqual(out.assignment, { m0: { t0: [1], t1: [0, 1] }, m1: {} });
  assert.match(out.adapted, /the plan names 1 member\(s\) not in the group \("x"\)/);
});

test("a plan KafkaJS cannot send fails in KafkaJS's SyncGroup encoder, and odd bytes decode as KafkaJS decodes them", async () => {
  const notAList = recorder(() => ({ m0: encode({ t0: [0] }) }));
  await assert.rejects(lead(notAList.factory, problem([{ id: "m0", subscription: ["t0"] }])), TypeError);
  const text = recorder(() => [{ memberId: "m0", memberAssignment: 7 }]); // written as the string "7"
  assert.deepEqual((await lead(text.factory, problem([{ id: "m0", subscription: ["t0"] }]))).assignment, { m0: {} });
});

test("a protocol the leader's assigner is not named for is KafkaJS's unsupported assigner error", async () => {
  const factory = () => ({ name: "A", assign: async () => [], protocol: () => ({ name: "B", metadata: Buffer.alloc(0) }) });
  await assert.rejects(lead(factory, problem([{ id: "m0", subscription: ["t0"] }])),
    { name: "KafkaJSNonRetriableError", message: /Unsupported partition assigner "B"/ });
});

test("what KafkaJS's protocol cannot carry is said, and a group with no members gets nothing", async () => {
  const { factory } = recorder();
  const out = await lead(factory, problem([{ id: "m0", subscription: ["t0"], owned: { t0: [0] }, generation: 3,
    instance_id: "i0", rack: "r1" }], { t0: 1 }, { protocol: "cooperative", partition_racks: { t0: [["r1"]] } }));
  assert.deepEqual(out.assignment, { m0: {} });
  for (const said of ["eager protocol", "claims not sent", "static membership dropped", "rack-blind"]) {
    assert.ok(out.adapted.includes(said), `${said} in ${out.adapted}`);
  }
  assert.deepEqual(await lead(factory, problem([])), { assignment: {}, adapted: "a group with no members has no leader: nothing is assigned" });
  assert.equal((await lead(factory, problem([{ id: "m0", subscription: ["t0"] }]))).adapted, undefined);
});

test("a problem that is not a classic consumer group is refused, naming the field", async () => {
  const { factory } = recorder();
  await assert.rejects(lead(factory, { format: 1, kind: "streams", subtopologies: {}, clients: [] }), /problem\.kind/);
  await assert.rejects(lead(factory, problem([], {}, { group_type: "consumer" })), /problem\.group_type/);
});
