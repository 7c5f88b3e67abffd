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
//  - task lags (kafkaStreamsStates(true)): 0 for a task the client held (active or standby: caught up), the whole
//    changelog (LAG_UNKNOWN_OWNER) for any other stateful task, as ClientState.computeTaskLags does for a client
//    with no offset for it;
//  - the TaskAssignment read back per KafkaStreamsAssignment: its ACTIVE tasks and its STANDBY tasks, under the
//    client its process id names (an unknown id under "unknown-process:<uuid>", which streams.clients then names).
//    A client with no KafkaStreamsAssignment is absent from the answer (streams.clients: "leaves out").
//    TaskAssignmentUtils.validateTaskAssignment is run as Streams runs it; an error it names goes into the answer
//    ("kafka_error"): the rebalance fails in Streams, and the spec names the same fault from the assignment.
// Sub-topology names map to TaskId subtopology numbers in sorted order (and back); sub-topologies the problem does
// not have but previous tasks name get numbers after those, in name order too.
//
// Compiled only against a classpath holding kafka-streams 3.8+ (the KIP-924 API).

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

public final class AssigncheckStreamsBridge implements AssigncheckBridge.Target {
    static final String APPLICATION = "assigncheck";
    /** The lag of a stateful task on a client that holds no copy of it: ClientState uses the changelog's end offset
     *  sum; any value above acceptable.recovery.lag (default 10000) means the same to an assignor. */
    static final long LAG_UNKNOWN_OWNER = 1_000_000L;

    private final Class<? extends TaskAssignor> type;
    private final Map<String, Object> config;
    private boolean fatal;

    private AssigncheckStreamsBridge(Class<? extends TaskAssignor> type, Map<String, Object> config) {
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

    public boolean fatal() {
        return fatal;
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
        public Optional<Set<String>> rackIds() { return Optional.empty(); }  // no racks in the model
    }

    static final class Client implements KafkaStreamsState {
        final ProcessId id;
        final int threads;
        final SortedSet<TaskId> active;
        final SortedSet<TaskId> standby;
        final SortedMap<String, Set<TaskId>> byConsumer;
        final Map<TaskId, Long> lags;  // null: not computed

        Client(ProcessId id, int threads, SortedSet<TaskId> active, SortedSet<TaskId> standby,
               SortedMap<String, Set<TaskId>> byConsumer, Map<TaskId, Long> lags) {
            this.id = id;
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
        public Map<String, String> clientTags() { return Collections.emptyMap(); }
        public Optional<String> rackId() { return Optional.empty(); }
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

    private static SortedSet<TaskId> tasks(Object doc, Names names) {
        SortedSet<TaskId> out = new TreeSet<>();
        if (doc == null) return out;
        for (String st : new TreeSet<>(((Map<String, ?>) doc).keySet())) {
            for (Object p : (List<?>) ((Map<?, ?>) doc).get(st)) {
                out.add(new TaskId(names.number(st), ((Number) p).intValue()));
            }
        }
        return out;
    }

    public String answer(String line) {
        Object id = null;
        try {
            Map<?, ?> request = (Map<?, ?>) new AssigncheckJson(line).parse();
            id = request.get("id");
            Map<?, ?> problem = (Map<?, ?>) request.get("problem");
            if (problem == null) throw new IllegalArgumentException("the request has no problem");
            if (!"streams".equals(problem.get("kind"))) {
                throw new IllegalArgumentException("a Streams task assignor takes Streams problems, got kind "
                        + problem.get("kind"));
            }
            Names names = new Names();
            Map<?, ?> subtopologies = (Map<?, ?>) problem.get("subtopologies");
            Set<String> stateless = new HashSet<>();
            Object statelessDoc = problem.get("stateless");
            if (statelessDoc != null) for (Object s : (List<?>) statelessDoc) stateless.add((String) s);
            Map<TaskId, TaskInfo> all = new HashMap<>();
            for (String st : new TreeSet<>(((Map<String, ?>) subtopologies).keySet())) {
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
            for (Object o : (List<?>) problem.get("clients")) {
                for (String field : new String[] {"active", "standby"}) {
                    Object doc = ((Map<?, ?>) o).get(field);
                    if (doc != null) for (Object st : ((Map<?, ?>) doc).keySet()) stale.add((String) st);
                }
            }
            for (String st : stale) names.number(st);
            Object standbyReplicas = problem.get("num_standby_replicas");
            Map<String, Object> originals = new LinkedHashMap<>(config);
            originals.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG,
                    String.valueOf(standbyReplicas == null ? 0 : ((Number) standbyReplicas).intValue()));
            AssignmentConfigs configs = AssignmentConfigs.of(new StreamsConfig(originals));
            Map<ProcessId, Client> withoutLags = new HashMap<>();
            Map<ProcessId, Client> withLags = new HashMap<>();
            Map<ProcessId, String> clientIds = new HashMap<>();
            for (Object o : (List<?>) problem.get("clients")) {
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
                Map<TaskId, Long> lags = new HashMap<>();
                for (TaskInfo t : all.values()) {
                    if (!t.isStateful()) continue;
                    boolean held = active.contains(t.id()) || standby.contains(t.id());
                    lags.put(t.id(), held ? 0L : LAG_UNKNOWN_OWNER);
                }
                ProcessId pid = processId(clientId);
                clientIds.put(pid, clientId);
                withoutLags.put(pid, new Client(pid, threads, active, standby, byConsumer, null));
                withLags.put(pid, new Client(pid, threads, active, standby, byConsumer, lags));
            }
            State state = new State(configs, all, withoutLags, withLags);
            TaskAssignor.TaskAssignment result;
            try {
                result = newInstance().assign(state);
            } catch (Throwable e) {
                Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
                return error(id, String.valueOf(cause), cause);
            }
            if (result == null || result.assignment() == null) {
                return "{\"format\":2,\"id\":" + id + ",\"error\":\"assign returned null\",\"exception\":"
                        + "\"null-result\",\"frame\":" + AssigncheckJson.quote(type.getName() + ".assign") + "}";
            }
            String kafkaError = TaskAssignmentUtils.validateTaskAssignment(state, result).name();
            return "{\"format\":2,\"id\":" + id + answerJson(result, clientIds, names)
                    + ("NONE".equals(kafkaError) ? "" : ",\"kafka_error\":" + AssigncheckJson.quote(kafkaError))
                    + "}";
        } catch (Throwable e) {  // the bridge itself (a malformed request): still one answer line
            return error(id, "bridge: " + e, e);
        }
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
        return ",\"assignment\":" + json(active) + ",\"standby\":" + json(standby);
    }

    private static String json(Map<String, Map<String, List<Integer>>> byClient) {
        StringBuilder b = new StringBuilder(1 << 10).append('{');
        boolean firstClient = true;
        for (Map.Entry<String, Map<String, List<Integer>>> c : byClient.entrySet()) {
            b.append(firstClient ? "" : ",").append(AssigncheckJson.quote(c.getKey())).append(":{");
            firstClient = false;
            boolean firstSt = true;
            for (Map.Entry<String, List<Integer>> st : c.getValue().entrySet()) {
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

    private String error(Object id, String message, Throwable cause) {
        fatal |= AssigncheckBridge.isFatal(cause);
        return AssigncheckBridge.errorAnswer(id, message, cause, "");
    }
}
