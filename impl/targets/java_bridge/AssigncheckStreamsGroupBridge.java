// assigncheck's bridge to a KIP-1071 streams-group task assignor (the broker-side `TaskAssignor` with
// `GroupAssignment assign(GroupSpec, TopologyDescriber)`), driven as the group coordinator's streams
// TargetAssignmentBuilder drives it:
//  - one assignor instance for the bridge's life, as a broker keeps the one it loaded;
//  - the GroupSpec built with the coordinator's own classes: one member per stream thread (a client of capacity k is
//    k members "<client>-1".."<client>-k" sharing the process id <client>), each member's current target
//    assignment (the client's previous active tasks dealt round-robin over its members in (sub-topology, partition)
//    order, those the topology has first, then its previous standbys less its actives: Kafka's assignor keeps
//    tasks per member, so which member held which task matters), no instance id, rack, client tags or task offsets, and the
//    assignment configs with num.standby.replicas from the problem;
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

public final class AssigncheckStreamsGroupBridge implements AssigncheckBridge.Target {
    static final String NEW_API = "org.apache.kafka.coordinator.group.api.streams.assignor.";  // 4.4+
    static final String OLD_API = "org.apache.kafka.coordinator.group.streams.assignor.";  // 4.1 - 4.3
    static final String IMPL = "org.apache.kafka.coordinator.group.streams.assignor.";  // GroupSpecImpl & co

    private final Object assignor;
    private final boolean newApi;
    private final Method assign;
    private final Class<?> describer;
    private boolean fatal;

    private AssigncheckStreamsGroupBridge(Object assignor, boolean newApi, Method assign, Class<?> describer) {
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

    public boolean fatal() {
        return fatal;
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

    /** `tasks` dealt round-robin over `members` buckets, from position `next`; returns the next position. */
    private static int deal(Map<String, Set<Integer>> tasks, List<Map<String, Set<Integer>>> members, int next) {
        for (Map.Entry<String, Set<Integer>> e : tasks.entrySet()) {
            for (int p : e.getValue()) {
                members.get(next++ % members.size()).computeIfAbsent(e.getKey(), k -> new HashSet<>()).add(p);
            }
        }
        return next;
    }

    private Object memberSpec(String processId, Map<String, Set<Integer>> active, Map<String, Set<Integer>> standby)
            throws ReflectiveOperationException {
        Map<String, Set<Integer>> none = Collections.emptyMap();
        if (newApi) {
            Constructor<?> c = Class.forName(IMPL + "MemberMetadataAndStateImpl").getConstructors()[0];
            return c.newInstance(Optional.empty(), Optional.empty(), processId, Collections.emptyMap(),
                    active, standby, none, Collections.emptyMap(), Collections.emptyMap());
        }
        Constructor<?> c = Class.forName(IMPL + "AssignmentMemberSpec").getConstructors()[0];
        return c.newInstance(Optional.empty(), Optional.empty(), active, standby, none, processId,
                Collections.emptyMap(), Collections.emptyMap(), Collections.emptyMap());
    }

    private Object groupSpec(Map<String, Object> members, int standbyReplicas) throws ReflectiveOperationException {
        Class<?> impl = Class.forName(IMPL + "GroupSpecImpl");
        Constructor<?> c = impl.getConstructors()[0];
        if (newApi) {
            Object configs = Class.forName(IMPL + "AssignmentConfigsImpl").getConstructor(int.class, List.class)
                    .newInstance(standbyReplicas, Collections.<String>emptyList());
            return c.newInstance(Collections.unmodifiableMap(members), configs);
        }
        return c.newInstance(Collections.unmodifiableMap(members),
                Collections.singletonMap("num.standby.replicas", String.valueOf(standbyReplicas)));
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

    public String answer(String line) {
        Object id = null;
        try {
            Map<?, ?> request = (Map<?, ?>) new AssigncheckJson(line).parse();
            id = request.get("id");
            Map<?, ?> problem = (Map<?, ?>) request.get("problem");
            if (problem == null) throw new IllegalArgumentException("the request has no problem");
            if (!"streams".equals(problem.get("kind"))) {
                throw new IllegalArgumentException("a streams group's task assignor takes Streams problems, got kind "
                        + problem.get("kind"));
            }
            Map<String, Integer> counts = new HashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) problem.get("subtopologies")).entrySet()) {
                counts.put((String) e.getKey(), ((Number) e.getValue()).intValue());
            }
            Set<String> stateless = new HashSet<>();
            Object statelessDoc = problem.get("stateless");
            if (statelessDoc != null) for (Object s : (List<?>) statelessDoc) stateless.add((String) s);
            Object standbyReplicas = problem.get("num_standby_replicas");
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
                deal(standby, standbys, next);
                for (int k = 0; k < threads; k++) {
                    String memberId = client + "-" + (k + 1);
                    processOf.put(memberId, client);
                    members.put(memberId, memberSpec(client, Collections.unmodifiableMap(actives.get(k)),
                            Collections.unmodifiableMap(standbys.get(k))));
                }
            }
            Set<String> notes = new LinkedHashSet<>();
            Object result;
            try {
                result = assign.invoke(assignor, groupSpec(members,
                        standbyReplicas == null ? 0 : ((Number) standbyReplicas).intValue()),
                        topology(counts, stateless));
            } catch (InvocationTargetException e) {
                return error(id, String.valueOf(e.getCause()), e.getCause(), notes);
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
            return "{\"format\":2,\"id\":" + id + ",\"assignment\":" + json(active) + ",\"standby\":" + json(standby)
                    + AssigncheckBridge.adapted(String.join("; ", notes)) + "}";
        } catch (Throwable e) {  // the bridge itself (a malformed request): still one answer line
            return error(id, "bridge: " + e, e, Collections.<String>emptySet());
        }
    }

    private static void gather(Map<?, ?> tasks, Map<String, List<Integer>> into) {
        if (tasks == null) return;
        for (Map.Entry<?, ?> e : tasks.entrySet()) {
            if (e.getValue() == null) continue;
            List<Integer> ps = into.computeIfAbsent(String.valueOf(e.getKey()), k -> new ArrayList<>());
            for (Object p : (Set<?>) e.getValue()) ps.add(((Number) p).intValue());
        }
    }

    private static String json(Map<String, Map<String, List<Integer>>> byClient) {
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

    private String error(Object id, String message, Throwable cause, Set<String> notes) {
        fatal |= AssigncheckBridge.isFatal(cause);
        return AssigncheckBridge.errorAnswer(id, message, cause, String.join("; ", notes));
    }
}
