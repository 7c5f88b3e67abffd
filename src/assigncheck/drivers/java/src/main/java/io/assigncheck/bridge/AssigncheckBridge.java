// assigncheck's bridge to a Java assignor: the `java:CLASS` target.
//
// A class implementing Kafka 4's broker-side API (ConsumerGroupPartitionAssignor, ShareGroupPartitionAssignor) is
// driven by AssigncheckGroupBridge, a Kafka Streams TaskAssignor (KIP-924) by AssigncheckStreamsBridge, a
// streams group's broker-side TaskAssignor (KIP-1071) by AssigncheckStreamsGroupBridge, each compiled only for a
// classpath that holds its API; this file drives the classic client API and runs the request loop for all.
//
// Our own source, shipped in the package and compiled by assigncheck (targets/java_bridge.py) against the
// target's classpath. It speaks the cmd: protocol version 2 (targets/command.py) and drives the class the
// way Kafka's consumers do (ConsumerCoordinator):
//  - member side, one assignor instance per member: onAssignment(its previous assignment, ConsumerGroupMetadata
//    with its generation), then subscriptionUserData(topics); its Subscription carries the topics, that userData,
//    ownedPartitions (cooperative protocol only: an eager member revokes everything before it joins),
//    generationId, rackId; the Subscription goes through the consumer protocol's wire format and back, and the
//    leader sets groupInstanceId, as performAssignment does;
//  - leader side, a fresh instance per problem: assign(Cluster with each partition's replica racks, the group).
// The rebalance protocol is the problem's when the class supports it, else the highest it supports (the
// coordinator's choice for a consumer configured with this assignor alone).
// API differences across kafka-clients 2.4 - 4.x (Subscription's generationId and rackId fields, the wire
// codec) are bridged by reflection, so one source compiles against every version.
//
// Start: java io.assigncheck.bridge.AssigncheckBridge CLASS [key=value ...]. First line out:
// {"format":2,"ready":{...}}, or {"format":2,"unavailable":"why"} and exit 2. Then one answer line per request line,
// until standard input closes (exit 0) or the process that started the bridge is gone (exit 4): either way the JVM
// halts, whatever threads the target started.

package io.assigncheck.bridge;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

public final class AssigncheckBridge {
    /** This package's prefix: the optional bridges are looked up by name, and its frames are never the assignor's. */
    static final String PACKAGE = "io.assigncheck.bridge.";

    public static void main(String[] args) throws IOException {
        haltWithParent();
        // Answers go to the real stdout only; whatever the assignor prints goes to stderr.
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        System.setOut(System.err);
        if (args.length < 1) {
            unavailable(out, "usage: io.assigncheck.bridge.AssigncheckBridge CLASS [key=value ...]");
        }
        Map<String, Object> config = new LinkedHashMap<>();
        for (int k = 1; k < args.length; k++) {
            int eq = args[k].indexOf('=');
            config.put(eq < 0 ? args[k] : args[k].substring(0, eq), eq < 0 ? "" : args[k].substring(eq + 1));
        }
        Target target = null;
        try {
            target = load(args[0], config);
        } catch (Unavailable e) {
            unavailable(out, e.getMessage());
        }
        target.warmUp();
        out.print("{\"format\":2,\"ready\":" + target.describe() + "}\n");
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        for (String line; (line = in.readLine()) != null; ) {
            if (line.trim().isEmpty()) continue;
            out.print(target.answer(line));
            out.print('\n');
            out.flush();
            if (target.fatal()) Runtime.getRuntime().halt(3);  // the JVM is not to be trusted after an OutOfMemoryError
        }
        // Input closed: whoever drove us is done (or gone). Halt, whatever the target left running: a non-daemon
        // thread would keep the JVM alive after main returns, and a shutdown hook of its could block System.exit.
        Runtime.getRuntime().halt(0);
    }

    /** Halts the JVM when the process that started it is gone, even while an answer is still being computed (the
     *  gate killed by SIGKILL, its input never read again): nothing a target starts outlives its gate. */
    private static void haltWithParent() {
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> {
            Runtime.getRuntime().halt(4);
        }));
    }

    /** What the request loop drives: one assignor class behind one of Kafka's assignor APIs. */
    interface Target {
        /** The JSON object of the ready line: class, name, api, kafka version. */
        String describe();

        /** Loads the classes a first problem needs, so that their cost is not charged to it. */
        void warmUp();

        /** One request line in, one answer line out (never throws). */
        String answer(String line);

        /** Whether the JVM must stop (after an OutOfMemoryError). */
        boolean fatal();
    }

    /** A Target's request handling, the same for every API: the request line read, its id kept for any error
     *  answer, the problem handed to `solve` (a task assignor's only when it is a Streams problem), and whatever
     *  escapes `solve` (a malformed request: the bridge's own fault) still one answer line; an error that leaves
     *  the JVM untrustworthy (OutOfMemoryError) remembered for `fatal`. */
    abstract static class Answering implements Target {
        private final boolean streams;
        private boolean fatal;

        /** `streams`: the target assigns Streams tasks, so it takes only problems of kind "streams". */
        Answering(boolean streams) {
            this.streams = streams;
        }

        /** The answer line (protocol 2) to one problem; `error` makes its error answers. */
        abstract String solve(Object id, Map<?, ?> problem) throws Exception;

        public final String answer(String line) {
            Object id = null;
            try {
                Map<?, ?> request = (Map<?, ?>) new AssigncheckJson(line).parse();
                id = request.get("id");
                Map<?, ?> problem = (Map<?, ?>) request.get("problem");
                if (problem == null) throw new IllegalArgumentException("the request has no problem");
                if (streams && !"streams".equals(problem.get("kind"))) {
                    throw new IllegalArgumentException("a Streams task assignor takes Streams problems, got kind "
                            + problem.get("kind"));
                }
                return solve(id, problem);
            } catch (Throwable e) {  // the bridge itself (a malformed request): still one answer line
                return error(id, "bridge: " + e, e, "");
            }
        }

        public final boolean fatal() {
            return fatal;
        }

        final String error(Object id, String message, Throwable cause, String adapted) {
            fatal |= isFatal(cause);
            return errorAnswer(id, message, cause, adapted);
        }
    }

    /** The driver for the API the class implements: the classic client one here, the broker-side ones in
     *  AssigncheckGroupBridge (present only when the classpath holds Kafka 4's group coordinator API). */
    static Target load(String className, Map<String, Object> config) throws Unavailable {
        Class<?> cls;
        try {
            cls = Class.forName(className);
        } catch (ClassNotFoundException e) {
            throw new Unavailable("class " + className + " is not on the classpath");
        } catch (LinkageError e) {
            throw new Unavailable("class " + className + " cannot be loaded: " + e);
        }
        if (ConsumerPartitionAssignor.class.isAssignableFrom(cls)) {
            return new Driver(cls.asSubclass(ConsumerPartitionAssignor.class), config);
        }
        for (String bridge : new String[] {"AssigncheckStreamsBridge", "AssigncheckStreamsGroupBridge"}) {
            Target streams = optional(bridge, cls, config);
            if (streams != null) return streams;
        }
        try {
            Class.forName(PACKAGE + "AssigncheckGroupBridge");
        } catch (ClassNotFoundException e) {
            throw new Unavailable(className + " is not a " + ConsumerPartitionAssignor.class.getName()
                    + ", and the classpath has no Kafka 4 group coordinator API (kafka-group-coordinator-api) for a "
                    + "broker-side assignor nor kafka-streams 3.8+ for a Streams TaskAssignor");
        }
        return optional("AssigncheckGroupBridge", cls, config);
    }

    /** The driver `bridge` (a class of this package, compiled only when the classpath holds its API) makes for
     *  `cls`, or null when that bridge is absent or `cls` is not of its API. */
    private static Target optional(String bridge, Class<?> cls, Map<String, Object> config) throws Unavailable {
        Class<?> driver;
        try {
            driver = Class.forName(PACKAGE + bridge);
        } catch (ClassNotFoundException e) {
            return null;
        }
        try {
            return (Target) driver.getMethod("load", Class.class, Map.class).invoke(null, cls, config);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Unavailable) throw (Unavailable) e.getCause();
            throw new Unavailable("cannot drive " + cls.getName() + ": " + e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new Unavailable("cannot drive " + cls.getName() + ": " + e);
        }
    }

    private static void unavailable(PrintStream out, String why) {
        out.print("{\"format\":2,\"unavailable\":" + AssigncheckJson.quote(why) + "}\n");
        out.flush();
        Runtime.getRuntime().halt(2);  // a class that failed to load may have started threads or hooks all the same
    }

    /** The target cannot run at all (no such class, not an assignor, no public no-argument constructor). */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String message) { super(message); }
    }

    /** A failure on the member side: which member's assignor instance threw, and in which callback. */
    static final class MemberSide extends Exception {
        private static final long serialVersionUID = 1L;

        MemberSide(String where, Throwable cause) { super(where, cause); }
    }

    /** One problem made ready for the leader: what assign() receives, and how the problem had to be adapted. */
    public static final class Prepared {
        public final Cluster cluster;
        public final GroupSubscription group;
        public final RebalanceProtocol protocol;
        public final List<String> memberIds;
        public final Set<String> notes;

        Prepared(Cluster cluster, GroupSubscription group, RebalanceProtocol protocol, List<String> memberIds,
                 Set<String> notes) {
            this.cluster = cluster;
            this.group = group;
            this.protocol = protocol;
            this.memberIds = memberIds;
            this.notes = notes;
        }
    }

    /** Builds the group as the consumers would send it and runs the assignor; shared with the benchmark. */
    public static final class Driver extends Answering {
        final Class<? extends ConsumerPartitionAssignor> type;
        final Map<String, Object> config;
        final String name;
        final List<RebalanceProtocol> protocols;

        private Driver(Class<? extends ConsumerPartitionAssignor> type, Map<String, Object> config)
                throws Unavailable {
            super(false);
            this.type = type;
            this.config = config;
            ConsumerPartitionAssignor probe;
            try {
                probe = newInstance();
            } catch (Throwable e) {
                Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
                throw new Unavailable("cannot instantiate " + type.getName() + " (it needs a public no-argument "
                        + "constructor, as Kafka's consumer requires): " + cause);
            }
            this.name = probe.name();
            this.protocols = new ArrayList<>(probe.supportedProtocols());
            if (protocols.isEmpty()) {
                throw new Unavailable(type.getName() + ".supportedProtocols() is empty: no consumer can use it");
            }
            Collections.sort(protocols);
        }

        public static Driver load(String className, Map<String, Object> config) throws Unavailable {
            Class<?> cls;
            try {
                cls = Class.forName(className);
            } catch (ClassNotFoundException e) {
                throw new Unavailable("class " + className + " is not on the classpath");
            } catch (LinkageError e) {
                throw new Unavailable("class " + className + " cannot be loaded: " + e);
            }
            if (!ConsumerPartitionAssignor.class.isAssignableFrom(cls)) {
                throw new Unavailable(className + " is not a " + ConsumerPartitionAssignor.class.getName());
            }
            return new Driver(cls.asSubclass(ConsumerPartitionAssignor.class), config);
        }

        /** As Kafka's ConsumerPartitionAssignor.getAssignorInstances: no-argument constructor, then configure. */
        public ConsumerPartitionAssignor newInstance() throws ReflectiveOperationException {
            ConsumerPartitionAssignor a = type.getDeclaredConstructor().newInstance();
            if (a instanceof Configurable) ((Configurable) a).configure(config);
            return a;
        }

        public String describe() {
            StringBuilder b = new StringBuilder("{\"class\":").append(AssigncheckJson.quote(type.getName()))
                    .append(",\"api\":\"classic\"")
                    .append(",\"name\":").append(AssigncheckJson.quote(String.valueOf(name)))
                    .append(",\"protocols\":[");
            for (int k = 0; k < protocols.size(); k++) {
                b.append(k == 0 ? "" : ",").append(AssigncheckJson.quote(protocols.get(k).name()));
            }
            return b.append("],\"kafka\":").append(AssigncheckJson.quote(Compat.kafkaVersion())).append('}').toString();
        }

        public void warmUp() {
            try {
                Map<String, Object> member = new LinkedHashMap<>();
                member.put("id", "warm-up");
                member.put("subscription", Collections.singletonList("t"));
                Map<String, Object> problem = new LinkedHashMap<>();
                problem.put("topics", Collections.singletonMap("t", 1L));
                problem.put("members", Collections.singletonList(member));
                assign(prepare(problem));
            } catch (Throwable ignored) {
                // a target that fails here fails on the probe problem too, and is reported there
            }
        }

        /** The protocol a group led by this assignor runs for a problem that asks for `wanted`. */
        RebalanceProtocol protocolFor(String wanted, Set<String> notes) {
            for (RebalanceProtocol p : protocols) {
                if (p.name().equalsIgnoreCase(wanted)) return p;
            }
            RebalanceProtocol chosen = protocols.get(protocols.size() - 1);
            notes.add("the problem's " + wanted + " protocol is not supported by " + name + "; run as "
                    + chosen.name().toLowerCase());
            return chosen;
        }

        /** The Cluster and GroupSubscription the leader's assign() receives for a problem document. */
        public Prepared prepare(Map<?, ?> problem) throws Exception {
            Set<String> notes = new LinkedHashSet<>();
            Object kind = problem.get("kind");
            if (kind != null && !"consumer".equals(kind)) {
                throw new IllegalArgumentException("java: targets assign consumer groups, not " + kind + " problems");
            }
            Object groupType = problem.get("group_type");
            if (groupType != null && !"classic".equals(groupType)) {
                notes.add("a " + groupType + " group's target assignment handed over as the members' previous "
                        + "assignments of a classic group");
            }
            Object protocolField = problem.get("protocol");
            RebalanceProtocol protocol = protocolFor(protocolField == null ? "eager" : (String) protocolField, notes);
            Map<?, ?> topics = (Map<?, ?>) problem.get("topics");
            Cluster cluster = cluster(topics, (Map<?, ?>) problem.get("partition_racks"));
            Map<String, Subscription> subscriptions = new HashMap<>();  // as performAssignment builds it
            List<String> memberIds = new ArrayList<>();
            for (Object o : (List<?>) problem.get("members")) {
                Map<?, ?> m = (Map<?, ?>) o;
                String id = (String) m.get("id");
                memberIds.add(id);
                subscriptions.put(id, subscription(m, topics, protocol, notes));
            }
            return new Prepared(cluster, new GroupSubscription(subscriptions), protocol, memberIds, notes);
        }

        private Subscription subscription(Map<?, ?> m, Map<?, ?> topics, RebalanceProtocol protocol,
                                          Set<String> notes) throws Exception {
            String id = (String) m.get("id");
            int generation = m.get("generation") == null ? -1 : ((Number) m.get("generation")).intValue();
            String instanceId = (String) m.get("instance_id");
            String rack = (String) m.get("rack");
            Set<String> joined = new HashSet<>();
            for (Object t : (List<?>) m.get("subscription")) joined.add((String) t);
            List<TopicPartition> claims = new ArrayList<>();
            Map<?, ?> owned = (Map<?, ?>) m.get("owned");
            if (owned != null) {
                for (Map.Entry<?, ?> e : owned.entrySet()) {
                    for (Object p : (List<?>) e.getValue()) {
                        claims.add(new TopicPartition((String) e.getKey(), ((Number) p).intValue()));
                    }
                }
            }
            noteUnreal(id, claims, joined, topics, protocol, notes);
            ConsumerPartitionAssignor mine = newInstance();
            if (generation >= 0 || !claims.isEmpty()) {
                try {  // the member's last SyncGroup: its assignment at its generation
                    mine.onAssignment(new Assignment(claims), Compat.groupMetadata(generation, id, instanceId));
                } catch (Throwable e) {
                    throw new MemberSide("member " + id + ": onAssignment", e);
                }
            }
            ByteBuffer userData;
            try {
                userData = mine.subscriptionUserData(joined);
            } catch (Throwable e) {
                throw new MemberSide("member " + id + ": subscriptionUserData", e);
            }
            List<TopicPartition> wire = protocol == RebalanceProtocol.COOPERATIVE
                    ? claims : Collections.<TopicPartition>emptyList();
            Subscription s = Compat.subscription(new ArrayList<>(joined), userData, wire, generation, rack, notes);
            s = Compat.viaWire(s);
            s.setGroupInstanceId(Optional.ofNullable(instanceId));
            return s;
        }

        /** Claims no consumer of this protocol sends: handed over as sent, and said so. */
        private static void noteUnreal(String id, List<TopicPartition> claims, Set<String> joined, Map<?, ?> topics,
                                       RebalanceProtocol protocol, Set<String> notes) {
            Set<TopicPartition> seen = new HashSet<>();
            for (TopicPartition tp : claims) {
                if (tp.partition() < 0) {
                    notes.add("member " + id + " claims a negative partition index, which no assignment contains; "
                            + "handed over as sent");
                }
                if (!seen.add(tp)) {
                    notes.add("member " + id + " claims " + tp + " twice, which no assignment does; handed over as "
                            + "sent");
                }
                if (protocol == RebalanceProtocol.COOPERATIVE && !joined.contains(tp.topic())
                        && topics.containsKey(tp.topic())) {
                    notes.add("member " + id + " owns " + tp + " of a topic it does not subscribe to: a cooperative "
                            + "consumer revokes those before it rejoins; handed over as sent");
                }
            }
        }

        /** Topic metadata as the leader's consumer sees it: brokers carry the racks of each partition's replicas. */
        static Cluster cluster(Map<?, ?> topics, Map<?, ?> racks) {
            Node noRack = new Node(0, "broker-0", 9092);
            Map<String, Node> byRack = new TreeMap<>();
            Map<String, Node[]> replicaSets = new HashMap<>();
            List<PartitionInfo> infos = new ArrayList<>();
            for (Map.Entry<?, ?> e : topics.entrySet()) {
                String topic = (String) e.getKey();
                int n = ((Number) e.getValue()).intValue();
                List<?> topicRacks = racks == null ? null : (List<?>) racks.get(topic);
                for (int p = 0; p < n; p++) {
                    List<?> rs = topicRacks != null && p < topicRacks.size() ? (List<?>) topicRacks.get(p) : null;
                    Node[] replicas;
                    if (rs == null || rs.isEmpty()) {
                        replicas = new Node[] {noRack};
                    } else {
                        TreeSet<String> sorted = new TreeSet<>();
                        for (Object r : rs) sorted.add((String) r);
                        String key = String.join("\u0000", sorted);
                        replicas = replicaSets.get(key);
                        if (replicas == null) {
                            replicas = new Node[sorted.size()];
                            int k = 0;
                            for (String r : sorted) {
                                Node node = byRack.get(r);
                                if (node == null) {
                                    node = new Node(byRack.size() + 1, "broker-" + (byRack.size() + 1), 9092, r);
                                    byRack.put(r, node);
                                }
                                replicas[k++] = node;
                            }
                            replicaSets.put(key, replicas);
                        }
                    }
                    infos.add(new PartitionInfo(topic, p, replicas[0], replicas, replicas));
                }
            }
            List<Node> nodes = new ArrayList<>();
            nodes.add(noRack);
            nodes.addAll(byRack.values());
            return new Cluster("assigncheck", nodes, infos, Collections.<String>emptySet(),
                    Collections.<String>emptySet());
        }

        /** A fresh leader instance assigns the prepared group. */
        public GroupAssignment assign(Prepared prepared) throws Exception {
            return newInstance().assign(prepared.cluster, prepared.group);
        }

        String solve(Object id, Map<?, ?> problem) throws Exception {
            Prepared prepared;
            try {
                prepared = prepare(problem);
            } catch (MemberSide e) {
                return error(id, e.getMessage() + " threw " + e.getCause(), e.getCause(), "");
            }
            String adapted = String.join("; ", prepared.notes);
            GroupAssignment result;
            try {
                result = assign(prepared);
            } catch (Throwable e) {
                Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
                return error(id, String.valueOf(cause), cause, adapted);
            }
            if (result == null || result.groupAssignment() == null) {
                return "{\"format\":2,\"id\":" + id + ",\"error\":\"assign returned null\",\"exception\":"
                        + "\"null-result\",\"frame\":" + AssigncheckJson.quote(type.getName() + ".assign")
                        + adapted(adapted) + "}";
            }
            return "{\"format\":2,\"id\":" + id + ",\"assignment\":" + assignmentJson(result) + adapted(adapted)
                    + "}";
        }
    }

    // ---- a Streams problem's fields, read alike by both Streams bridges (docs/TARGETS.md, the Streams document) ----

    /** A stateful task's end offset sum, what a client with no offset for it is behind (ClientState reads the
     *  changelog's), raised to the largest lag a client reports for the task: far above Streams' default
     *  acceptable.recovery.lag (10000), so such a client is never caught up unless the problem says so. */
    static final long LAG_UNKNOWN_OWNER = 1_000_000L;

    /** The sub-topologies with no state store. */
    static Set<String> stateless(Map<?, ?> problem) {
        Set<String> out = new HashSet<>();
        Object doc = problem.get("stateless");
        if (doc != null) for (Object s : (List<?>) doc) out.add((String) s);
        return out;
    }

    /** num.standby.replicas (0 when the problem leaves it out). */
    static int standbyReplicas(Map<?, ?> problem) {
        Object n = problem.get("num_standby_replicas");
        return n == null ? 0 : ((Number) n).intValue();
    }

    /** rack.aware.assignment.tags (empty when the problem leaves them out). */
    static List<String> assignmentTags(Map<?, ?> problem) {
        List<String> out = new ArrayList<>();
        Object doc = problem.get("rack_aware_assignment_tags");
        if (doc != null) for (Object t : (List<?>) doc) out.add((String) t);
        return Collections.unmodifiableList(out);
    }

    /** A client's reported lags: sub-topology -> partition -> lag (the document's nulls left out). */
    static Map<String, Map<Integer, Long>> lags(Map<?, ?> client) {
        Map<String, Map<Integer, Long>> out = new TreeMap<>();
        Object doc = client.get("lags");
        if (doc == null) return out;
        for (Map.Entry<?, ?> e : ((Map<?, ?>) doc).entrySet()) {
            Map<Integer, Long> row = new TreeMap<>();
            List<?> lags = (List<?>) e.getValue();
            for (int p = 0; p < lags.size(); p++) {
                if (lags.get(p) != null) row.put(p, ((Number) lags.get(p)).longValue());
            }
            out.put((String) e.getKey(), row);
        }
        return out;
    }

    /** A client's rack id. */
    static Optional<String> rack(Map<?, ?> client) {
        return Optional.ofNullable((String) client.get("rack"));
    }

    /** A client's client.tag.* pairs. */
    static Map<String, String> clientTags(Map<?, ?> client) {
        Map<String, String> out = new TreeMap<>();
        Object doc = client.get("client_tags");
        if (doc != null) for (Map.Entry<?, ?> e : ((Map<?, ?>) doc).entrySet()) {
            out.put((String) e.getKey(), (String) e.getValue());
        }
        return Collections.unmodifiableMap(out);
    }

    /** client -> sub-topology -> task indices, each list sorted and empty ones left out (an answer's
     *  "assignment" or "standby"). */
    static String tasksJson(Map<String, Map<String, List<Integer>>> byClient) {
        StringBuilder b = new StringBuilder(1 << 10).append('{');
        boolean firstClient = true;
        for (Map.Entry<String, Map<String, List<Integer>>> c : byClient.entrySet()) {
            b.append(firstClient ? "" : ",").append(AssigncheckJson.quote(c.getKey())).append(":{");
            firstClient = false;
            boolean firstSt = true;
            for (Map.Entry<String, List<Integer>> st : c.getValue().entrySet()) {
                if (st.getValue().isEmpty()) continue;
                b.append(firstSt ? "" : ",").append(AssigncheckJson.quote(st.getKey())).append(":[");
                firstSt = false;
                List<Integer> ps = st.getValue();
                Collections.sort(ps);
                for (int k = 0; k < ps.size(); k++) b.append(k == 0 ? "" : ",").append(ps.get(k));
                b.append(']');
            }
            b.append('}');
        }
        return b.append('}').toString();
    }

    /** A JVM that ran out of memory (or worse) serves no more requests; a deep recursion is the call's alone. */
    static boolean isFatal(Throwable cause) {
        return cause instanceof VirtualMachineError && !(cause instanceof StackOverflowError);
    }

    /** Every bridge's error answer (protocol 2): the message, the exception's class and frame, what was adapted. */
    static String errorAnswer(Object id, String message, Throwable cause, String adapted) {
        return "{\"format\":2,\"id\":" + id + ",\"error\":" + AssigncheckJson.quote(message)
                + ",\"exception\":" + AssigncheckJson.quote(cause.getClass().getName())
                + ",\"frame\":" + AssigncheckJson.quote(frame(cause)) + adapted(adapted) + "}";
    }

    /** The answer's `adapted` field: what the bridge had to change in the problem to give it to the class. */
    static String adapted(String notes) {
        return notes.isEmpty() ? "" : ",\"adapted\":" + AssigncheckJson.quote(notes);
    }

    /** Member -> topic -> partitions, in the order the assignor returned them (repeats kept: H4 judges them). */
    public static String assignmentJson(GroupAssignment result) {
        StringBuilder b = new StringBuilder(1 << 12).append('{');
        boolean firstMember = true;
        for (Map.Entry<String, Assignment> e : new TreeMap<>(result.groupAssignment()).entrySet()) {
            b.append(firstMember ? "" : ",").append(AssigncheckJson.quote(e.getKey())).append(":{");
            firstMember = false;
            Map<String, List<Integer>> byTopic = new TreeMap<>();
            List<TopicPartition> parts = e.getValue() == null ? null : e.getValue().partitions();
            if (parts != null) {
                for (TopicPartition tp : parts) {
                    byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
                }
            }
            boolean firstTopic = true;
            for (Map.Entry<String, List<Integer>> t : byTopic.entrySet()) {
                b.append(firstTopic ? "" : ",").append(AssigncheckJson.quote(t.getKey())).append(":[");
                firstTopic = false;
                List<Integer> ps = t.getValue();
                for (int k = 0; k < ps.size(); k++) b.append(k == 0 ? "" : ",").append(ps.get(k).intValue());
                b.append(']');
            }
            b.append('}');
        }
        return b.append('}').toString();
    }

    /** Where a crash happened: the top frame outside the JDK and this bridge (the assignor's own code). */
    static String frame(Throwable t) {
        StackTraceElement[] stack = t.getStackTrace();
        for (StackTraceElement e : stack) {
            String c = e.getClassName();
            if (c.startsWith("java.") || c.startsWith("javax.") || c.startsWith("jdk.") || c.startsWith("sun.")
                    || c.startsWith("com.sun.") || c.startsWith(PACKAGE)) {
                continue;
            }
            return format(e);
        }
        return stack.length == 0 ? "unknown" : format(stack[0]);
    }

    private static String format(StackTraceElement e) {
        return e.getClassName() + "." + e.getMethodName() + "(" + e.getFileName() + ":" + e.getLineNumber() + ")";
    }

    /** The parts of the API that differ across kafka-clients versions, looked up once by reflection. */
    public static final class Compat {
        // (topics, userData, owned, generationId, rackId): 3.5+; (..., generationId): between; (topics, userData,
        // owned): 2.4+.
        static final Constructor<Subscription> SUB_GEN_RACK = constructor(Subscription.class, List.class,
                ByteBuffer.class, List.class, int.class, Optional.class);
        static final Constructor<Subscription> SUB_GEN = constructor(Subscription.class, List.class,
                ByteBuffer.class, List.class, int.class);
        static final Constructor<Subscription> SUB_RACK = constructor(Subscription.class, List.class,
                ByteBuffer.class, List.class, Optional.class);
        static final Constructor<ConsumerGroupMetadata> GROUP = constructor(ConsumerGroupMetadata.class,
                String.class, int.class, String.class, Optional.class);
        static final Method SERIALIZE = method("org.apache.kafka.clients.consumer.internals.ConsumerProtocol",
                "serializeSubscription", Subscription.class);
        static final Method DESERIALIZE = method("org.apache.kafka.clients.consumer.internals.ConsumerProtocol",
                "deserializeSubscription", ByteBuffer.class);

        static Subscription subscription(List<String> topics, ByteBuffer userData, List<TopicPartition> owned,
                                         int generation, String rack, Set<String> notes) throws Exception {
            Optional<String> rackId = Optional.ofNullable(rack);
            if (SUB_GEN_RACK != null) return SUB_GEN_RACK.newInstance(topics, userData, owned, generation, rackId);
            if (rack != null && SUB_RACK == null) {
                notes.add("kafka-clients " + kafkaVersion() + " has no Subscription.rackId: member racks not sent");
            }
            if (generation >= 0 && SUB_GEN == null) {
                notes.add("kafka-clients " + kafkaVersion() + " has no Subscription.generationId: generations reach "
                        + "the assignor through its userData only");
            }
            if (SUB_GEN != null) return SUB_GEN.newInstance(topics, userData, owned, generation);
            if (SUB_RACK != null) return SUB_RACK.newInstance(topics, userData, owned, rackId);
            return new Subscription(topics, userData, owned);
        }

        static ConsumerGroupMetadata groupMetadata(int generation, String memberId, String instanceId)
                throws Exception {
            Optional<String> instance = Optional.ofNullable(instanceId);
            if (GROUP != null) return GROUP.newInstance("assigncheck", generation, memberId, instance);
            if (!ConsumerGroupMetadata.class.isInterface()) {
                throw new IllegalStateException("this kafka-clients' ConsumerGroupMetadata cannot be built");
            }
            // A kafka-clients where it became an interface: answer its four accessors.
            return (ConsumerGroupMetadata) Proxy.newProxyInstance(ConsumerGroupMetadata.class.getClassLoader(),
                    new Class<?>[] {ConsumerGroupMetadata.class}, (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "groupId": return "assigncheck";
                            case "generationId": return generation;
                            case "memberId": return memberId;
                            case "groupInstanceId": return instance;
                            case "toString": return "ConsumerGroupMetadata(generation=" + generation + ")";
                            case "hashCode": return System.identityHashCode(proxy);
                            case "equals": return proxy == args[0];
                            default: throw new UnsupportedOperationException(method.getName());
                        }
                    });
        }

        /** Through ConsumerProtocol's serializer and back, as the leader receives it from the broker. */
        static Subscription viaWire(Subscription s) throws Exception {
            if (SERIALIZE == null || DESERIALIZE == null) return s;
            try {
                return (Subscription) DESERIALIZE.invoke(null, (ByteBuffer) SERIALIZE.invoke(null, s));
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
            }
        }

        public static String kafkaVersion() {
            Method m = method("org.apache.kafka.common.utils.AppInfoParser", "getVersion");
            if (m == null) m = method("org.apache.kafka.common.utils.internals.AppInfoParser", "getVersion");  // 4.4+
            try {
                return m == null ? "unknown" : String.valueOf(m.invoke(null));
            } catch (ReflectiveOperationException e) {
                return "unknown";
            }
        }

        private static <T> Constructor<T> constructor(Class<T> type, Class<?>... parameters) {
            try {
                return type.getConstructor(parameters);
            } catch (NoSuchMethodException e) {
                return null;
            }
        }

        private static Method method(String className, String name, Class<?>... parameters) {
            try {
                return Class.forName(className).getMethod(name, parameters);
            } catch (ReflectiveOperationException | LinkageError e) {
                return null;
            }
        }
    }
}
