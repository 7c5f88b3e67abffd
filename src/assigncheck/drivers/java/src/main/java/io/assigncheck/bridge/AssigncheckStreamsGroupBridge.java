// assigncheck's bridge to a KIP-1071 streams-group task assignor (the broker-side `TaskAssignor` with
// `GroupAssignment assign(GroupSpec, TopologyDescriber)`), driven as the group coordinator's streams
// TargetAssignmentBuilder drives it:
//  - one assignor instance for the bridge's life, as a broker keeps the one it loaded;
//  - the GroupSpec built with the coordinator's own classes: one member per stream thread (a client of capacity k is
//    k members "<client>-1".."<client>-k" sharing the process id <client>), each member's current target
//    assignment (the client's previous active tasks dealt round-robin over its members in (sub-topology, partition)
//    order, those the topology has first, then its previous standbys less its actives: Kafka's assignor keeps
//    tasks per member, so which member held which task matters), no instance id; the client's rack and client
//    tags on each of its members; its reported lags as task offsets and end offsets (end offset sum minus lag,
//    on the member holding the task, else dealt on round-robin; no lags: no offsets); the assignment configs
//    with num.standby.replicas (and, from 4.4, rack.aware.assignment.tags) from the problem;
//  - a TopologyDescriber over the problem's sub-topologies (ids: the sub-topology names, sorted; numberOfTasks;
//    stateful unless listed stateless; NoSuchElementException for an unknown id, as TopologyMetadata throws);
//  - the result read as the coordinator reads it: each group member's entry (none: nothing), entries of ids not in
//    the group ignored (the answer's "adapted" note says so); actives and standbys gathered per process id into the
//    client's (warm-up tasks are not modelled).
// The API moved between versions: kafka-group-coordinator 4.1 to 4.3 hold it in
// org.apache.kafka.coordinator.group.streams.assignor (GroupSpecImpl over AssignmentMemberSpec records and a
// Map<String, String> of configs); 4.4 in org.apache.kafka.coordinator.group.api.streams.assignor
// (GroupSpecImpl over MemberMetadataAndStateImpl records and an AssignmentConfigsImpl). One source drives both by
// reflection, with a Proxy for the TopologyDescriber interface of either package.

package io.assigncheck.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

public final class AssigncheckStreamsGroupBridge extends AssigncheckBridge.Answering {
    static final String NEW_API = "org.apache.kafka.coordinator.group.api.streams.assignor.";  // 4.4+
    static final String OLD_API = "org.apache.kafka.coordinator.group.streams.assignor.";  // 4.1 - 4.3
    static final String IMPL = "org.apache.kafka.coordinator.group.streams.assignor.";  // GroupSpecImpl & co

    private final Object assignor;
    private final boolean newApi;
    private final Method assign;
    private final Class<?> describer;

    private AssigncheckStreamsGroupBridge(Object assignor, boolean newApi, Method assign, Class<?> describer) {
        super(true);
        this.assignor = assignor;
        this.newApi = newApi;
        this.assign = assign;
        this.describer = describer;
    }

    /** Called by AssigncheckBridge.load: the driver for a KIP-1071 TaskAssignor, or null for another class. */
    public static AssigncheckBridge.Target load(Class<?> cls, Map<String, Object> config)
            throws AssigncheckBridge.Unavailable {
        Boolean newApi = null;
        for (String prefix : new String[] {NEW_API, OLD_API}) {
            try {
                if (Class.forName(prefix + "TaskAssignor").isAssignableFrom(cls)) {
                    newApi = prefix.equals(NEW_API);
                    break;
                }
            } catch (ClassNotFoundException e) {
                // this version's coordinator has the other package
            }
        }
        if (newApi == null) return null;
        if (!config.isEmpty()) {  // the API has no configure(): a broker configures it through the group's configs
            throw new AssigncheckBridge.Unavailable("--config: a streams group's TaskAssignor takes no configuration "
                    + "(its only settings, num.standby.replicas, come from the problem)");
        }
        String api = newApi ? NEW_API : OLD_API;
        try {
            Class<?> spec = Class.forName(api + "GroupSpec");
            Class<?> describer = Class.forName(api + "TopologyDescriber");
            Object a = cls.getDeclaredConstructor().newInstance();
            return new AssigncheckStreamsGroupBridge(a, newApi, cls.getMethod("assign", spec, describer), describer);
        } catch (Throwable e) {
            Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
            throw new AssigncheckBridge.Unavailable("cannot instantiate " + cls.getName() + " (a broker loads it "
                    + "with a public no-argument constructor): " + cause);
        }
    }

    public String describe() {
        String name;
        try {
            name = String.valueOf(assignor.getClass().getMethod("name").invoke(assignor));
        } catch (ReflectiveOperationException e) {
            name = assignor.getClass().getSimpleName();
        }
        return "{\"class\":" + AssigncheckJson.quote(assignor.getClass().getName())
                + ",\"name\":" + AssigncheckJson.quote(name)
                + ",\"api\":\"streams\",\"kip\":\"1071\""
                + ",\"kafka\":" + AssigncheckJson.quote(AssigncheckBridge.Compat.kafkaVersion()) + "}";
    }

    public void warmUp() {
        // Kept empty on purpose: the instance is the broker's, and a warm-up call would be state it never saw.
    }

    private static Map<String, Set<Integer>> tasks(Object doc) {
        Map<String, Set<Integer>> out = new TreeMap<>();
        if (doc == null) return out;
        for (Map.Entry<?, ?> e : ((Map<?, ?>) doc).entrySet()) {
            Set<Integer> ps = out.computeIfAbsent((String) e.getKey(), k -> new TreeSet<>());
            for (Object p : (List<?>) e.getValue()) ps.add(((Number) p).intValue());
        }
        return out;
    }

    /** The tasks of `tasks` the topology has (`known`), or those it does not. */
    private static Map<String, Set<Integer>> known(Map<String, Set<Integer>> tasks, Map<String, Integer> counts,
                                                   boolean known) {
        Map<String, Set<Integer>> out = new TreeMap<>();
        for (Map.Entry<String, Set<Integer>> e : tasks.entrySet()) {
            Integer n = counts.get(e.getKey());
            for (int p : e.getValue()) {
                if ((n != null && p >= 0 && p < n) == known) out.computeIfAbsent(e.getKey(), k -> new TreeSet<>()).add(p);
            }
        }
        return out;
    }

    private static boolean holds(Map<String, Set<Integer>> tasks, String subtopology, int partition) {
        Set<Integer> ps = tasks.get(subtopology);
        return ps != null && ps.contains(partition);
    }

    /** `tasks` dealt round-robin over `members` buckets, from position `next`; returns the next position. */
    private static int deal(Map<String, Set<Integer>> tasks, List<Map<String, Set<Integer>>> members, int next) {
        for (Map.Entry<String, Set<Integer>> e : tasks.entrySet()) {
            for (int p : e.getValue()) {
                members.get(next++ % members.size()).computeIfAbsent(e.getKey(), k -> new HashSet<>()).add(p);
            }
        }
        return next;
    }

    /** What one member reports besides its tasks: its client's rack and tags, and its task offsets and end
     *  offsets (sub-topology -> partition -> offset sum). */
    static final class Reported {
        final Optional<String> rack;
        final Map<String, String> tags;
        final Map<String, Map<Integer, Long>> offsets = new TreeMap<>();
        final Map<String, Map<Integer, Long>> endOffsets = new TreeMap<>();

        Reported(Optional<String> rack, Map<String, String> tags) {
            this.rack = rack;
            this.tags = tags;
        }

        void add(String subtopology, int partition, long offset, long end) {
            offsets.computeIfAbsent(subtopology, k -> new TreeMap<>()).put(partition, offset);
            endOffsets.computeIfAbsent(subtopology, k -> new TreeMap<>()).put(partition, end);
        }
    }

    private Object memberSpec(String processId, Map<String, Set<Integer>> active, Map<String, Set<Integer>> standby,
                              Reported reported) throws ReflectiveOperationException {
        Map<String, Set<Integer>> none = Collections.emptyMap();
        if (newApi) {
            Constructor<?> c = Class.forName(IMPL + "MemberMetadataAndStateImpl").getConstructors()[0];
            return c.newInstance(Optional.empty(), reported.rack, processId, reported.tags, active, standby, none,
                    Collections.unmodifiableMap(reported.offsets), Collections.unmodifiableMap(reported.endOffsets));
        }
        Constructor<?> c = Class.forName(IMPL + "AssignmentMemberSpec").getConstructors()[0];
        return c.newInstance(Optional.empty(), reported.rack, active, standby, none, processId, reported.tags,
                byTaskId(reported.offsets), byTaskId(reported.endOffsets));
    }

    /** Offsets keyed by the 4.1-4.3 coordinator's TaskId record. */
    private static Map<Object, Long> byTaskId(Map<String, Map<Integer, Long>> offsets)
            throws ReflectiveOperationException {
        Constructor<?> taskId = Class.forName(IMPL + "TaskId").getConstructor(String.class, int.class);
        Map<Object, Long> out = new HashMap<>();
        for (Map.Entry<String, Map<Integer, Long>> st : offsets.entrySet()) {
            for (Map.Entry<Integer, Long> p : st.getValue().entrySet()) {
                out.put(taskId.newInstance(st.getKey(), p.getKey()), p.getValue());
            }
        }
        return Collections.unmodifiableMap(out);
    }

    private Object groupSpec(Map<String, Object> members, int standbyReplicas, List<String> tags)
            throws ReflectiveOperationException {
        Class<?> impl = Class.forName(IMPL + "GroupSpecImpl");
        Constructor<?> c = impl.getConstructors()[0];
        if (newApi) {
            Object configs = Class.forName(IMPL + "AssignmentConfigsImpl").getConstructor(int.class, List.class)
                    .newInstance(standbyReplicas, tags);
            return c.newInstance(Collections.unmodifiableMap(members), configs);
        }
        // 4.1-4.3: the group's assignment configs hold num.standby.replicas only (no rack-aware tags yet).
        return c.newInstance(Collections.unmodifiableMap(members),
                Collections.singletonMap("num.standby.replicas", String.valueOf(standbyReplicas)));
    }

    /** Each stateful task's end offset sum: LAG_UNKNOWN_OWNER, or the largest lag a client reports if more. */
    private static Map<String, Map<Integer, Long>> endOffsets(List<?> clients, Map<String, Integer> counts,
                                                              Set<String> stateless) {
        Map<String, Map<Integer, Long>> out = new TreeMap<>();
        for (Object o : clients) {
            for (Map.Entry<String, Map<Integer, Long>> st : AssigncheckBridge.lags((Map<?, ?>) o).entrySet()) {
                if (!counts.containsKey(st.getKey()) || stateless.contains(st.getKey())) continue;
                Map<Integer, Long> row = out.computeIfAbsent(st.getKey(), k -> new TreeMap<>());
                for (Map.Entry<Integer, Long> p : st.getValue().entrySet()) {
                    long lag = Math.max(AssigncheckBridge.LAG_UNKNOWN_OWNER, p.getValue());
                    row.merge(p.getKey(), lag, Math::max);
                }
            }
        }
        return out;
    }

    private Object topology(Map<String, Integer> tasks, Set<String> stateless) {
        List<String> ids = Collections.unmodifiableList(new ArrayList<>(new TreeSet<>(tasks.keySet())));
        return Proxy.newProxyInstance(describer.getClassLoader(), new Class<?>[] {describer}, (proxy, m, args) -> {
            switch (m.getName()) {
                case "subtopologies":
                    return ids;
                case "maxNumInputPartitions":
                case "isStateful": {
                    String id = (String) args[0];
                    if (!tasks.containsKey(id)) {
                        throw new NoSuchElementException("Topology does not contain subtopology " + id);
                    }
                    return m.getName().equals("isStateful") ? (Object) !stateless.contains(id) : tasks.get(id);
                }
                case "toString":
                    return "TopologyDescriber" + tasks;
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                default:
                    throw new UnsupportedOperationException(m.getName());
            }
        });
    }

    String solve(Object id, Map<?, ?> problem) throws Exception {
        Map<String, Integer> counts = new HashMap<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) problem.get("subtopologies")).entrySet()) {
            counts.put((String) e.getKey(), ((Number) e.getValue()).intValue());
        }
        Set<String> stateless = AssigncheckBridge.stateless(problem);
        Map<String, Map<Integer, Long>> ends = endOffsets((List<?>) problem.get("clients"), counts, stateless);
        Map<String, Object> members = new HashMap<>();  // as TargetAssignmentBuilder.build makes memberSpecs
        Map<String, String> processOf = new HashMap<>();
        List<String> clients = new ArrayList<>();
        for (Object o : (List<?>) problem.get("clients")) {
            Map<?, ?> c = (Map<?, ?>) o;
            String client = (String) c.get("id");
            clients.add(client);
            int threads = ((Number) c.get("capacity")).intValue();
            Map<String, Set<Integer>> active = tasks(c.get("active"));
            Map<String, Set<Integer>> standby = tasks(c.get("standby"));
            for (Map.Entry<String, Set<Integer>> e : active.entrySet()) {
                Set<Integer> s = standby.get(e.getKey());
                if (s != null) s.removeAll(e.getValue());
            }
            List<Map<String, Set<Integer>>> actives = new ArrayList<>();
            List<Map<String, Set<Integer>>> standbys = new ArrayList<>();
            for (int k = 0; k < threads; k++) {
                actives.add(new TreeMap<>());
                standbys.add(new TreeMap<>());
            }
            // Tasks the topology has first, then stale ones (a sub-topology or partition it no longer has),
            // so that stale claims never crowd a member's real tasks (the coordinator dealt the real ones).
            int next = deal(known(active, counts, true), actives, 0);
            next = deal(known(active, counts, false), actives, next);
            next = deal(standby, standbys, next);
            // The client's reported lags as task offsets (end offset sum minus lag), each on the member holding
            // the task, the others dealt on round-robin: a thread reports the state directories it has locked.
            List<Reported> reported = new ArrayList<>();
            for (int k = 0; k < threads; k++) {
                reported.add(new Reported(AssigncheckBridge.rack(c), AssigncheckBridge.clientTags(c)));
            }
            for (Map.Entry<String, Map<Integer, Long>> st : AssigncheckBridge.lags(c).entrySet()) {
                Map<Integer, Long> end = ends.get(st.getKey());
                if (end == null) continue;  // a stateless task has no changelog, no offsets
                for (Map.Entry<Integer, Long> p : st.getValue().entrySet()) {
                    int holder = -1;
                    for (int k = 0; k < threads && holder < 0; k++) {
                        if (holds(actives.get(k), st.getKey(), p.getKey())
                                || holds(standbys.get(k), st.getKey(), p.getKey())) holder = k;
                    }
                    long e = end.get(p.getKey());
                    reported.get(holder >= 0 ? holder : next++ % threads).add(st.getKey(), p.getKey(),
                            e - p.getValue(), e);
                }
            }
            for (int k = 0; k < threads; k++) {
                String memberId = client + "-" + (k + 1);
                processOf.put(memberId, client);
                members.put(memberId, memberSpec(client, Collections.unmodifiableMap(actives.get(k)),
                        Collections.unmodifiableMap(standbys.get(k)), reported.get(k)));
            }
        }
        Set<String> notes = new LinkedHashSet<>();
        Object result;
        try {
            result = assign.invoke(assignor, groupSpec(members, AssigncheckBridge.standbyReplicas(problem),
                    AssigncheckBridge.assignmentTags(problem)), topology(counts, stateless));
        } catch (InvocationTargetException e) {
            return error(id, String.valueOf(e.getCause()), e.getCause(), String.join("; ", notes));
        }
        Object byMember = result == null ? null : result.getClass().getMethod("members").invoke(result);
        if (byMember == null) {
            return "{\"format\":2,\"id\":" + id + ",\"error\":\"assign returned null\",\"exception\":"
                    + "\"null-result\",\"frame\":" + AssigncheckJson.quote(assignor.getClass().getName()
                    + ".assign") + "}";
        }
        Map<String, Map<String, List<Integer>>> active = new TreeMap<>();
        Map<String, Map<String, List<Integer>>> standby = new TreeMap<>();
        for (String client : clients) {
            active.put(client, new TreeMap<>());
            standby.put(client, new TreeMap<>());
        }
        for (Map.Entry<?, ?> e : ((Map<?, ?>) byMember).entrySet()) {
            String client = processOf.get((String) e.getKey());
            if (client == null) {
                notes.add("the result names member " + e.getKey() + ", not in the group: the coordinator ignores it");
                continue;
            }
            Object ma = e.getValue();
            if (ma == null) continue;
            gather((Map<?, ?>) ma.getClass().getMethod("activeTasks").invoke(ma), active.get(client));
            gather((Map<?, ?>) ma.getClass().getMethod("standbyTasks").invoke(ma), standby.get(client));
        }
        return "{\"format\":2,\"id\":" + id + ",\"assignment\":" + AssigncheckBridge.tasksJson(active)
                + ",\"standby\":" + AssigncheckBridge.tasksJson(standby)
                + AssigncheckBridge.adapted(String.join("; ", notes)) + "}";
    }

    private static void gather(Map<?, ?> tasks, Map<String, List<Integer>> into) {
        if (tasks == null) return;
        for (Map.Entry<?, ?> e : tasks.entrySet()) {
            if (e.getValue() == null) continue;
            List<Integer> ps = into.computeIfAbsent(String.valueOf(e.getKey()), k -> new ArrayList<>());
            for (Object p : (Set<?>) e.getValue()) ps.add(((Number) p).intValue());
        }
    }
}
