"use strict";
// A KafkaJS consumer group's rebalance around one assigner, as KafkaJS 2.2.4's consumers and a broker run it
// (kafkajs/src/consumer/consumerGroup.js, [PRIVATE.JOIN] and [PRIVATE.SYNC]):
//
// 1. Each member is a consumer of its own: the assigner factory is called with that consumer's cluster, the group
//    id and a logger, and `protocol({topics})` with the topics it subscribed to (in subscription order) makes the
//    metadata its JoinGroup request carries, encoded by KafkaJS's own JoinGroup request (version 5, what KafkaJS
//    sends to any broker since Kafka 2.3).
// 2. The broker answers the leader's JoinGroup with every member's id and metadata bytes, which KafkaJS's own
//    response decoder turns into the `members` the leader's assigner gets, in the order the broker lists them:
//    the problem's order (a broker lists its member map's order, which no assigner can count on; the gate's H8
//    lists the group in other orders). The first member leads: the first to join leads a classic group.
// 3. The leader looks its assigner up by the protocol's name and calls `assign({members, topics})`, where `topics`
//    is the leader's *own* subscription (consumerGroup.js passes `topicsSubscribed`), on its own cluster, which
//    knows the metadata of the leader's own topics only.
// 4. The plan goes out in KafkaJS's SyncGroup request (version 3); the broker hands each member the last entry
//    naming it (an empty assignment to a member with none, nothing to an id outside the group), and each member
//    decodes its bytes with `AssignerProtocol.MemberAssignment.decode`: that decoded assignment is the answer.
//    A consumer then drops the topics it does not subscribe to (with a warning): the answer keeps them, since it
//    is the assigner that handed them out.
//
// KafkaJS's consumer protocol (MemberMetadata version 0: topics and user data) carries no owned partitions, no
// generation and no rack, and KafkaJS speaks only the eager protocol and has no static membership: what a problem
// says of those cannot reach the assigner, and the answer says so (`adapted`).

const { AssignerProtocol } = require("kafkajs");
const Encoder = require("kafkajs/src/protocol/encoder");
const Decoder = require("kafkajs/src/protocol/decoder");
const JoinGroup = require("kafkajs/src/protocol/requests/joinGroup");
const SyncGroup = require("kafkajs/src/protocol/requests/syncGroup");
const { createLogger, LEVELS } = require("kafkajs/src/loggers");
const consoleLogCreator = require("kafkajs/src/loggers/console");
const { KafkaJSNonRetriableError } = require("kafkajs");

const { simulatedCluster } = require("./cluster");

const GROUP_ID = "assigncheck";
const JOIN_VERSION = 5;
const SYNC_VERSION = 3;

// KafkaJS's default logger (its console log creator, level INFO or KAFKAJS_LOG_LEVEL); `serve` sends the console
// to standard error.
const rootLogger = createLogger({ level: LEVELS.INFO, logCreator: consoleLogCreator });

function checkProblem(problem) {
  if (problem === null || typeof problem !== "object" || Array.isArray(problem)) {
    throw new TypeError("problem: must be a JSON object");
  }
  if (problem.kind !== undefined && problem.kind !== "consumer") {
    throw new TypeError(`problem.kind: a KafkaJS assigner assigns consumer groups, not ${JSON.stringify(problem.kind)}`);
  }
  if (problem.group_type !== undefined && problem.group_type !== "classic") {
    throw new TypeError(`problem.group_type: a KafkaJS assigner leads classic groups, not ${JSON.stringify(problem.group_type)}`);
  }
  if (problem.topics === null || typeof problem.topics !== "object" || !Array.isArray(problem.members)) {
    throw new TypeError("problem: needs `topics` (an object) and `members` (an array)");
  }
}

// What the problem says that KafkaJS's protocol cannot carry.
function adaptations(problem) {
  const notes = [];
  if (problem.protocol === "cooperative") notes.push("KafkaJS speaks only the eager protocol");
  const members = problem.members;
  if (members.some((m) => Object.values(m.owned || {}).some((partitions) => partitions.length > 0))) {
    notes.push("claims not sent: KafkaJS's member metadata (version 0) carries no owned partitions or generation");
  }
  if (members.some((m) => m.instance_id != null)) {
    notes.push("static membership dropped: KafkaJS members join without a group.instance.id");
  }
  if (members.some((m) => m.rack != null) && problem.partition_racks) {
    notes.push("rack-blind: KafkaJS's member metadata carries no rack");
  }
  return notes.join("; ");
}

// The topics a consumer subscribed to, in the order KafkaJS keeps them: the keys of an object filled in
// subscription order (consumer/index.js `topics[t] = ...`, then `keys(topics)`), so integer-like names come first.
function subscribed(subscription) {
  const topics = {};
  for (const topic of subscription) topics[topic] = { fromBeginning: false };
  return Object.keys(topics);
}

// One member's consumer: its assigner, created as the consumer creates it, and its JoinGroup protocol.
function consumerOf(createAssigner, problem, member) {
  const topics = subscribed(member.subscription);
  const cluster = simulatedCluster(problem, topics);
  const assigner = createAssigner({ groupId: GROUP_ID, logger: rootLogger.namespace("Consumer"), cluster });
  return { member, topics, assigner };
}

// The JoinGroup request a consumer sends, as bytes, and the broker's reading of its protocol.
async function joinGroup(consumer) {
  const { request } = JoinGroup.protocol({ version: JOIN_VERSION })({
    groupId: GROUP_ID, sessionTimeout: 30000, rebalanceTimeout: 60000, memberId: consumer.member.id,
    protocolType: "consumer",
    groupProtocols: [consumer.assigner.protocol({ topics: consumer.topics })],
  });
  const bytes = (await request.encode()).buffer;
  const d = new Decoder(bytes);
  d.readString(); d.readInt32(); d.readInt32(); d.readString(); d.readString(); d.readString();
  const [protocol] = d.readArray((p) => ({ name: p.readString(), metadata: p.readBytes() }));
  return protocol;
}

// The broker's JoinGroup response to the leader, read by KafkaJS's own decoder.
async function joinResponse(generationId, protocolName, leaderId, joined) {
  const bytes = new Encoder()
    .writeInt32(0).writeInt16(0).writeInt32(generationId).writeString(protocolName).writeString(leaderId)
    .writeString(leaderId)
    .writeArray(joined.map(({ memberId, metadata }) =>
      new Encoder().writeString(memberId).writeString(null).writeBytes(metadata)))
    .buffer;
  const { response } = JoinGroup.protocol({ version: JOIN_VERSION })({});
  return response.parse(await response.decode(bytes));
}

// The leader's SyncGroup request, and the broker's reading of it: member id -> assignment bytes, the last entry
// for a member winning; entries for ids outside the group are counted apart.
async function syncGroup(generationId, leaderId, groupAssignment, memberIds) {
  const { request } = SyncGroup.protocol({ version: SYNC_VERSION })({
    groupId: GROUP_ID, generationId, memberId: leaderId, groupAssignment,
  });
  const d = new Decoder((await request.encode()).buffer);
  d.readString(); d.readInt32(); d.readString(); d.readString();
  const entries = d.readArray((e) => ({ memberId: e.readString(), bytes: e.readBytes() }));
  const known = new Set(memberIds);
  const byMember = new Map();
  const strangers = [];
  for (const { memberId, bytes } of entries) {
    if (known.has(memberId)) byMember.set(memberId, bytes);
    else strangers.push(memberId);
  }
  return { byMember, strangers };
}

// What one member reads from the broker's SyncGroup response: KafkaJS's response decoder, then
// `MemberAssignment.decode` (null for an empty assignment).
async function memberAssignment(bytes) {
  const body = new Encoder().writeInt32(0).writeInt16(0).writeBytes(bytes || Buffer.alloc(0)).buffer;
  const { response } = SyncGroup.protocol({ version: SYNC_VERSION })({});
  const { memberAssignment: received } = await response.parse(await response.decode(body));
  const decoded = AssignerProtocol.MemberAssignment.decode(received);
  return decoded != null ? decoded.assignment : {};
}

// One rebalance of the problem's group, led by its first member: {assignment, adapted}.
async function lead(createAssigner, problem) {
  checkProblem(problem);
  if (problem.members.length === 0) {
    return { assignment: {}, adapted: "a group with no members has no leader: nothing is assigned" };
  }
  const consumers = problem.members.map((member) => consumerOf(createAssigner, problem, member));
  const joined = [];
  for (const consumer of consumers) {
    const protocol = await joinGroup(consumer);
    joined.push({ memberId: consumer.member.id, name: protocol.name, metadata: protocol.metadata });
  }
  const protocolName = joined[0].name;
  if (joined.some((j) => j.name !== protocolName)) {
    // The broker refuses a member whose protocols share none with the group's (INCONSISTENT_GROUP_PROTOCOL).
    throw new KafkaJSNonRetriableError(`the members' protocol names differ (${joined.map((j) => j.name).join(", ")}): ` +
      "the broker refuses the join (INCONSISTENT_GROUP_PROTOCOL)");
  }
  const leader = consumers[0];
  const generationId = 1;
  const { members } = await joinResponse(generationId, protocolName, leader.member.id, joined);
  if (leader.assigner.name !== protocolName) {
    throw new KafkaJSNonRetriableError(
      `Unsupported partition assigner "${protocolName}", the assigner wasn't found in the assigners list`);
  }
  const plan = await leader.assigner.assign({ members, topics: leader.topics });
  const { byMember, strangers } = await syncGroup(generationId, leader.member.id, plan, problem.members.map((m) => m.id));
  const assignment = {};
  for (const { member } of consumers) {
    assignment[member.id] = await memberAssignment(byMember.get(member.id));
  }
  const notes = [adaptations(problem)];
  if (strangers.length > 0) {
    const named = strangers.slice(0, 3).map((id) => JSON.stringify(id)).join(", ");
    notes.push(`the plan names ${strangers.length} member(s) not in the group (${named}): ` +
      "the broker hands those assignments to nobody");
  }
  const adapted = notes.filter(Boolean).join("; ");
  return adapted ? { assignment, adapted } : { assignment };
}

module.exports = { lead };
