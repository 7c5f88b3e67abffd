// assigncheck's bridge to a Kafka Streams task assignor (KIP-924, kafka-streams 3.8+:
// org.apache.kafka.streams.processor.assignment.TaskAssignor), driven as StreamsPartitionAssignor.assign drives one
// configured with task.assignor.class:
//  - a fresh instance per problem, configured with the StreamsConfig's originals (AssignorConfiguration makes a new
//    one each rebalance): the --config entries, with application.id and bootstrap.servers set when absent (names
//    only: nothing connects);
//  - ApplicationState as DefaultApplicationState holds it: AssignmentConfigs.of(that StreamsConfig) with
//    num.standby.replicas from the problem; one KafkaStreamsState per client (process id: a name-based UUID of the
//    client id; numProcessingThreads = its capacity; previous active tasks; previous standby tasks without its
//    previous actives, as ClientState derives them from task offset sums; one consumer per thread); every task of
//    every sub-topology as a TaskInfo: its source partition, and for a stateful task a state store and its
//    changelog partition (StickyTaskAssignor tells stateful tasks by their changelog partitions);
//  - task lags (kafkaStreamsStates(true)): the lag the client reports for a stateful task (the problem's "lags");
//    for a task it reports none for, RUNNING (Task.LATEST_OFFSET) if it ran it as active, 0 if it held it as
//    standby (caught up), else the whole changelog (the task's end offset sum: AssigncheckBridge.LAG_UNKNOWN_OWNER,
//    or the largest lag a client reports if more), as ClientState.computeTaskLags does from the offset sums a
//    client sends (KafkaStreamsState.lagFor documents LATEST_OFFSET for a previously running active task);
//  - each client's rackId and clientTags (its TaskTopicPartitions have no racks: the model has none);
//    acceptable.recovery.lag and rack.aware.assignment.tags in the StreamsConfig when the problem sets them
//    (else the --config entries' or Streams' defaults);
//  - the TaskAssignment read back per KafkaStreamsAssignment: its ACTIVE tasks and its STANDBY tasks, under the
//    client its process id names (an unknown id under "unknown-process:<uuid>", which streams.clients then names).
//    A client with no KafkaStreamsAssignment is absent from the answer (streams.clients: "leaves out").
//    TaskAssignmentUtils.validateTaskAssignment is run as Streams runs it; an error it names goes into the answer
//    ("kafka_error"): the rebalance fails in Streams, and the spec names the same fault from the assignment.
// Sub-topology names map to TaskId subtopology numbers in sorted order (and back); sub-topologies the problem does
// not have but previous tasks name get numbers after those, in name order too.
//
// Compiled only against a classpath holding kafka-streams 3.8+ (the KIP-924 API).

package io.assigncheck.bridge;

import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;
import org.apache.kafka.streams.state.HostInfo;

public final class AssigncheckStreamsBridge extends AssigncheckBridge.Answering {
    /** The lag of a task the client ran as active (Streams' internal Task.LATEST_OFFSET: its offset sum and so
     *  its lag, as KafkaStreamsState.lagFor documents). */
    static final long RUNNING = -2L;
    static final String APPLICATION = "assigncheck";

    private final Class<? extends TaskAssignor> type;
    private final Map<String, Object> config;

    private AssigncheckStreamsBridge(Class<? extends TaskAssignor> type, Map<String, Object> config) {
        super(true);
        this.type = type;
        this.config = config;
    }

    /** Called by AssigncheckBridge.load: the driver for a KIP-924 TaskAssignor, or null for another class. */
    public static AssigncheckBridge.Target load(Class<?> cls, Map<String, Object> config)
            throws AssigncheckBridge.Unavailable {
        if (!TaskAssignor.class.isAssignableFrom(cls)) return null;
        Map<String, Object> originals = new LinkedHashMap<>();
        originals.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        originals.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092");
        originals.putAll(config);
        AssigncheckStreamsBridge bridge = new AssigncheckStreamsBridge(cls.asSubclass(TaskAssignor.class), originals);
        try {
            bridge.newInstance();
            new StreamsConfig(originals);
        } catch (Throwable e) {
            Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
            throw new AssigncheckBridge.Unavailable("cannot instantiate " + cls.getName() + " (Streams loads "
                    + "task.assignor.class with a public no-argument constructor and configures it): " + cause);
        }
        return bridge;
    }

    private TaskAssignor newInstance() throws ReflectiveOperationException {
        TaskAssignor a = type.getDeclaredConstructor().newInstance();
        a.configure(config);
        return a;
    }

    public String describe() {
        return "{\"class\":" + AssigncheckJson.quote(type.getName())
                + ",\"name\":" + AssigncheckJson.quote(type.getSimpleName())
                + ",\"api\":\"streams\""
                + ",\"kafka\":" + AssigncheckJson.quote(AssigncheckBridge.Compat.kafkaVersion()) + "}";
    }

    public void warmUp() {
        // Kept empty: every problem gets a fresh instance, and the first one's class loading is the JVM's cost.
    }

    /** The process id of a client id: a name-based UUID, so every process meets the same ids. */
    static ProcessId processId(String clientId) {
        return new ProcessId(UUID.nameUUIDFromBytes(("assigncheck-client:" + clientId).getBytes(StandardCharsets.UTF_8)));
    }

    static final class Task implements TaskInfo {
        final TaskId id;
        final boolean stateful;
        final Set<String> stores;
        final Set<TaskTopicPartition> partitions;

        Task(TaskId id, String subtopology, boolean stateful) {
            this.id = id;
            this.stateful = stateful;
            String store = subtopology + "-store";
            this.stores = stateful ? Collections.singleton(store) : Collections.<String>emptySet();
            Set<TaskTopicPartition> ps = new HashSet<>();
            ps.add(new Partition(new TopicPartition(subtopology + "-source", id.partition()), true, false));
            if (stateful) {
                ps.add(new Partition(new TopicPartition(APPLICATION + "-" + store + "-changelog", id.partition()),
                        false, true));
            }
            this.partitions = Collections.unmodifiableSet(ps);
        }

        public TaskId id() { return id; }
        public boolean isStateful() { return stateful; }
        public Set<String> stateStoreNames() { return stores; }
        public Set<TaskTopicPartition> topicPartitions() { return partitions; }
    }

    static final class Partition implements TaskTopicPartition {
        final TopicPartition tp;
        final boolean source;
        final boolean changelog;

        Partition(TopicPartition tp, boolean source, boolean changelog) {
            this.tp = tp;
            this.source = source;
            this.changelog = changelog;
        }

        public TopicPartition topicPartition() { return tp; }
        public boolean isSource() { return source; }
        public boolean isChangelog() { return changelog; }
        public Optional<Set<String>> rackIds() { return Optional.empty(); }  // no partition racks in the model
    }

    static final class Client implements KafkaStreamsState {
        final ProcessId id;
        final int threads;
        final SortedSet<TaskId> active;
        final SortedSet<TaskId> standby;
        final SortedMap<String, Set<TaskId>> byConsumer;
        final Map<TaskId, Long> lags;  // null: not computed
        final Optional<String> rack;
        final Map<String, String> tags;

        Client(ProcessId id, int threads, SortedSet<TaskId> active, SortedSet<TaskId> standby,
               SortedMap<String, Set<TaskId>> byConsumer, Map<TaskId, Long> lags, Optional<String> rack,
               Map<String, String> tags) {
            this.id = id;
            this.rack = rack;
            this.tags = tags;
            this.threads = threads;
            this.active = Collections.unmodifiableSortedSet(active);
            this.standby = Collections.unmodifiableSortedSet(standby);
            this.byConsumer = Collections.unmodifiableSortedMap(byConsumer);
            this.lags = lags;
        }

        public ProcessId processId() { return id; }
        public int numProcessingThreads() { return threads; }
        public SortedSet<String> consumerClientIds() { return new TreeSet<>(byConsumer.keySet()); }
        public SortedSet<TaskId> previousActiveTasks() { return active; }
        public SortedSet<TaskId> previousStandbyTasks() { return standby; }

        private Map<TaskId, Long> lags() {
            if (lags == null) {
                throw new UnsupportedOperationException("Lag computation was not requested for KafkaStreamsState "
                        + "with process " + id);
            }
            return lags;
        }

        public long lagFor(TaskId task) {
            Long lag = lags().get(task);
            if (lag == null) throw new IllegalStateException("Tried to lookup lag for unknown task " + task);
            return lag;
        }

        public SortedSet<TaskId> prevTasksByLag(String consumer) {
            Map<TaskId, Long> all = lags();
            SortedSet<TaskId> out = new TreeSet<>((a, b) -> {
                int c = Long.compare(all.get(a), all.get(b));
                return c != 0 ? c : a.compareTo(b);
            });
            for (TaskId t : byConsumer.getOrDefault(consumer, Collections.<TaskId>emptySet())) {
                if (all.containsKey(t)) out.add(t);
            }
            return out;
        }

        public Map<TaskId, Long> statefulTasksToLagSums() { return new HashMap<>(lags()); }
        public Optional<HostInfo> hostInfo() { return Optional.empty(); }
        public Map<String, String> clientTags() { return tags; }
        public Optional<String> rackId() { return rack; }
    }

    /** One problem as Streams' leader holds it. */
    static final class State implements ApplicationState {
        final AssignmentConfigs configs;
        final Map<TaskId, TaskInfo> tasks;
        final Map<ProcessId, Client> withoutLags;
        final Map<ProcessId, Client> withLags;

        State(AssignmentConfigs configs, Map<TaskId, TaskInfo> tasks, Map<ProcessId, Client> withoutLags,
              Map<ProcessId, Client> withLags) {
            this.configs = configs;
            this.tasks = Collections.unmodifiableMap(tasks);
            this.withoutLags = withoutLags;
            this.withLags = withLags;
        }

        @SuppressWarnings("unchecked")
        public Map<ProcessId, KafkaStreamsState> kafkaStreamsStates(boolean computeTaskLags) {
            return (Map<ProcessId, KafkaStreamsState>) (Map<?, ?>) (computeTaskLags ? withLags : withoutLags);
        }

        public AssignmentConfigs assignmentConfigs() { return configs; }
        public Map<TaskId, TaskInfo> allTasks() { return tasks; }
    }

    /** Sub-topology names <-> TaskId subtopology numbers. */
    static final class Names {
        final Map<String, Integer> numbers = new HashMap<>();
        final Map<Integer, String> names = new HashMap<>();

        int number(String name) {
            Integer n = numbers.get(name);
            if (n == null) {
                n = numbers.size();
                numbers.put(name, n);
                names.put(n, name);
            }
            return n;
        }

        String name(int number) {
            String n = names.get(number);
            return n != null ? n : "subtopology-" + number;
        }
    }

    /** A JSON object's keys (the reader's are strings), sorted. */
    private static SortedSet<String> sortedKeys(Object doc) {
        SortedSet<String> out = new TreeSet<>();
        for (Object key : ((Map<?, ?>) doc).keySet()) out.add((String) key);
        return out;
    }

    private static SortedSet<TaskId> tasks(Object doc, Names names) {
        SortedSet<TaskId> out = new TreeSet<>();
        if (doc == null) return out;
        for (String st : sortedKeys(doc)) {
            for (Object p : (List<?>) ((Map<?, ?>) doc).get(st)) {
                out.add(new TaskId(names.number(st), ((Number) p).intValue()));
            }
        }
        return out;
    }

    String solve(Object id, Map<?, ?> problem) throws Exception {
        Names names = new Names();
        List<?> clientDocs = (List<?>) problem.get("clients");
        Map<?, ?> subtopologies = (Map<?, ?>) problem.get("subtopologies");
        Set<String> stateless = AssigncheckBridge.stateless(problem);
        Map<TaskId, TaskInfo> all = new HashMap<>();
        for (String st : sortedKeys(subtopologies)) {
            int n = names.number(st);
            int count = ((Number) subtopologies.get(st)).intValue();
            for (int p = 0; p < count; p++) {
                TaskId t = new TaskId(n, p);
                all.put(t, new Task(t, st, !stateless.contains(st)));
            }
        }
        // Sub-topologies only previous tasks name, numbered in name order whatever order the clients come in
        // (a number that followed the client order would make the ids, and so the hash order, follow it).
        Set<String> stale = new TreeSet<>();
        for (Object o : clientDocs) {
            for (String field : new String[] {"active", "standby"}) {
                Object doc = ((Map<?, ?>) o).get(field);
                if (doc != null) for (Object st : ((Map<?, ?>) doc).keySet()) stale.add((String) st);
            }
        }
        for (String st : stale) names.number(st);
        Map<String, Object> originals = new LinkedHashMap<>(config);
        originals.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG,
                String.valueOf(AssigncheckBridge.standbyReplicas(problem)));
        Object recoveryLag = problem.get("acceptable_recovery_lag");
        if (recoveryLag != null) {
            originals.put(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, String.valueOf(recoveryLag));
        }
        List<String> tags = AssigncheckBridge.assignmentTags(problem);
        if (!tags.isEmpty()) {
            originals.put(StreamsConfig.RACK_AWARE_ASSIGNMENT_TAGS_CONFIG, String.join(",", tags));
            // The leader's own client.tag.* (StreamsConfig checks each of those tags is among them): the first
            // client's, as the leader is one of the clients and every client sets them all (no client: the tags'
            // own names as values, a leader that is no longer in the group).
            Map<String, String> leader = new TreeMap<>();
            for (String t : tags) leader.put(t, t);
            if (!clientDocs.isEmpty()) leader = AssigncheckBridge.clientTags((Map<?, ?>) clientDocs.get(0));
            for (Map.Entry<String, String> t : leader.entrySet()) {
                originals.put(StreamsConfig.CLIENT_TAG_PREFIX + t.getKey(), t.getValue());
            }
        }
        AssignmentConfigs configs = AssignmentConfigs.of(new StreamsConfig(originals));
        // Each client's reported lags; a stateful task's end offset sum (what a client with no offset for it is
        // behind): LAG_UNKNOWN_OWNER, or every lag reported for it if more, as a changelog's end is.
        Map<String, Map<TaskId, Long>> reported = new HashMap<>();
        Map<TaskId, Long> endOffsetSums = new HashMap<>();
        for (TaskInfo t : all.values()) {
            if (t.isStateful()) endOffsetSums.put(t.id(), AssigncheckBridge.LAG_UNKNOWN_OWNER);
        }
        for (Object o : clientDocs) {
            Map<TaskId, Long> lags = new HashMap<>();
            for (Map.Entry<String, Map<Integer, Long>> st : AssigncheckBridge.lags((Map<?, ?>) o).entrySet()) {
                for (Map.Entry<Integer, Long> p : st.getValue().entrySet()) {
                    TaskId t = new TaskId(names.number(st.getKey()), p.getKey());
                    if (!endOffsetSums.containsKey(t)) continue;  // a stateless task has no changelog, no lag
                    lags.put(t, p.getValue());
                    endOffsetSums.put(t, Math.max(endOffsetSums.get(t), p.getValue()));
                }
            }
            reported.put((String) ((Map<?, ?>) o).get("id"), lags);
        }
        Map<ProcessId, Client> withoutLags = new HashMap<>();
        Map<ProcessId, Client> withLags = new HashMap<>();
        Map<ProcessId, String> clientIds = new HashMap<>();
        for (Object o : clientDocs) {
            Map<?, ?> c = (Map<?, ?>) o;
            String clientId = (String) c.get("id");
            int threads = ((Number) c.get("capacity")).intValue();
            SortedSet<TaskId> active = tasks(c.get("active"), names);
            SortedSet<TaskId> standby = tasks(c.get("standby"), names);
            standby.removeAll(active);
            // One consumer per thread; previous tasks spread over them round-robin (what each held is not in
            // the model, and only prevTasksByLag reads it).
            SortedMap<String, Set<TaskId>> byConsumer = new TreeMap<>();
            for (int k = 0; k < threads; k++) {
                byConsumer.put(clientId + "-StreamThread-" + (k + 1) + "-consumer", new HashSet<>());
            }
            List<String> consumers = new ArrayList<>(byConsumer.keySet());
            int k = 0;
            for (TaskId t : active) byConsumer.get(consumers.get(k++ % threads)).add(t);
            for (TaskId t : standby) byConsumer.get(consumers.get(k++ % threads)).add(t);
            Map<TaskId, Long> lags = new HashMap<>(reported.get(clientId));
            for (Map.Entry<TaskId, Long> t : endOffsetSums.entrySet()) {
                long none = active.contains(t.getKey()) ? RUNNING : standby.contains(t.getKey()) ? 0L : t.getValue();
                lags.putIfAbsent(t.getKey(), none);
            }
            ProcessId pid = processId(clientId);
            clientIds.put(pid, clientId);
            Optional<String> rack = AssigncheckBridge.rack(c);
            Map<String, String> clientTags = AssigncheckBridge.clientTags(c);
            withoutLags.put(pid, new Client(pid, threads, active, standby, byConsumer, null, rack, clientTags));
            withLags.put(pid, new Client(pid, threads, active, standby, byConsumer, lags, rack, clientTags));
        }
        State state = new State(configs, all, withoutLags, withLags);
        TaskAssignor.TaskAssignment result;
        try {
            result = newInstance().assign(state);
        } catch (Throwable e) {
            Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
            return error(id, String.valueOf(cause), cause, "");
        }
        if (result == null || result.assignment() == null) {
            return "{\"format\":2,\"id\":" + id + ",\"error\":\"assign returned null\",\"exception\":"
                    + "\"null-result\",\"frame\":" + AssigncheckJson.quote(type.getName() + ".assign") + "}";
        }
        String kafkaError = TaskAssignmentUtils.validateTaskAssignment(state, result).name();
        return "{\"format\":2,\"id\":" + id + answerJson(result, clientIds, names)
                + ("NONE".equals(kafkaError) ? "" : ",\"kafka_error\":" + AssigncheckJson.quote(kafkaError))
                + "}";
    }

    /** ,"assignment":{client:{st:[...]}},"standby":{client:{st:[...]}}, each index list sorted (a
     *  KafkaStreamsAssignment holds its tasks in a map: no order, no repeats). */
    private static String answerJson(TaskAssignor.TaskAssignment result, Map<ProcessId, String> clientIds,
                                     Names names) {
        Map<String, Map<String, List<Integer>>> active = new TreeMap<>();
        Map<String, Map<String, List<Integer>>> standby = new TreeMap<>();
        for (KafkaStreamsAssignment a : result.assignment()) {
            ProcessId pid = a.processId();
            String client = clientIds.get(pid);
            if (client == null) client = "unknown-process:" + (pid == null ? "null" : String.valueOf(pid.id()));
            Map<String, List<Integer>> actives = active.computeIfAbsent(client, c -> new TreeMap<>());
            Map<String, List<Integer>> standbys = standby.computeIfAbsent(client, c -> new TreeMap<>());
            for (KafkaStreamsAssignment.AssignedTask t : a.tasks().values()) {
                Map<String, List<Integer>> into =
                        t.type() == KafkaStreamsAssignment.AssignedTask.Type.ACTIVE ? actives : standbys;
                into.computeIfAbsent(names.name(t.id().subtopology()), s -> new ArrayList<>())
                        .add(t.id().partition());
            }
        }
        return ",\"assignment\":" + AssigncheckBridge.tasksJson(active)
                + ",\"standby\":" + AssigncheckBridge.tasksJson(standby);
    }
}
