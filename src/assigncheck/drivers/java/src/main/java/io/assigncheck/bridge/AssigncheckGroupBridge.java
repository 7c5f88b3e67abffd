// assigncheck's bridge to Kafka 4's broker-side assignors (KIP-848 ConsumerGroupPartitionAssignor, KIP-932
// ShareGroupPartitionAssignor), driven as the group coordinator drives them (TargetAssignmentBuilder):
//  - one assignor instance for the bridge's life, as a broker keeps the instance it loaded from
//    group.consumer.assignors (configured with the --config entries when it is Configurable): state carried from one
//    call to the next is part of what is checked;
//  - GroupSpec: the members in an unmodifiable HashMap keyed by member id; each member's subscribed topic ids (the
//    names it subscribes to that the metadata holds), rack id, instance id and current assignment (the previous
//    target assignment, by topic id, unmodifiable); the subscription type computed from the subscribed names as
//    ModernGroup does; isPartitionAssigned from the current assignments; every partition assignable (share-group
//    partition initialization is not modelled);
//  - SubscribedTopicDescriber: partition counts by topic id (-1 for an unknown id) and each partition's replica racks;
//  - the result read as the coordinator reads it: each group member's entry, or an empty assignment when it has
//    none; entries of ids not in the group are ignored (the answer's "adapted" note says so).
// Topic ids are derived from topic names (a name-based UUID), so a problem always meets the same ids; a recreated
// topic is a new name for a new id: its old partitions are claims of a topic missing from the metadata.
//
// Compiled only against a classpath holding org.apache.kafka:kafka-group-coordinator-api (4.0+); the methods that
// later versions add to the API's interfaces (GroupSpec.isPartitionAssignable, 4.2) are implemented without
// @Override so that one source compiles against every 4.x.

package io.assigncheck.bridge;

import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.ShareGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;

public final class AssigncheckGroupBridge extends AssigncheckBridge.Answering {
    private final PartitionAssignor assignor;
    private final String api;  // "consumer" or "share": the group type whose coordinator runs it

    private AssigncheckGroupBridge(PartitionAssignor assignor, String api) {
        super(false);
        this.assignor = assignor;
        this.api = api;
    }

    /** Called by AssigncheckBridge.load for a class that is no ConsumerPartitionAssignor. */
    public static AssigncheckBridge.Target load(Class<?> cls, Map<String, Object> config)
            throws AssigncheckBridge.Unavailable {
        String api;
        if (ConsumerGroupPartitionAssignor.class.isAssignableFrom(cls)) {
            api = "consumer";
        } else if (ShareGroupPartitionAssignor.class.isAssignableFrom(cls)) {
            api = "share";
        } else {
            throw new AssigncheckBridge.Unavailable(cls.getName() + " implements none of Kafka's assignor APIs "
                    + "(ConsumerPartitionAssignor, ConsumerGroupPartitionAssignor, ShareGroupPartitionAssignor, Streams' "
                    + "TaskAssignor)");
        }
        PartitionAssignor a;
        try {
            a = (PartitionAssignor) cls.getDeclaredConstructor().newInstance();
            if (a instanceof Configurable) ((Configurable) a).configure(config);
        } catch (Throwable e) {
            Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
            throw new AssigncheckBridge.Unavailable("cannot instantiate " + cls.getName() + " (a broker loads it "
                    + "with a public no-argument constructor): " + cause);
        }
        return new AssigncheckGroupBridge(a, api);
    }

    public String describe() {
        return "{\"class\":" + AssigncheckJson.quote(assignor.getClass().getName())
                + ",\"name\":" + AssigncheckJson.quote(String.valueOf(assignor.name()))
                + ",\"api\":" + AssigncheckJson.quote(api)
                + ",\"kafka\":" + AssigncheckJson.quote(AssigncheckBridge.Compat.kafkaVersion()) + "}";
    }

    public void warmUp() {
        // Kept empty on purpose: the instance is the broker's, and a warm-up call would be state it never saw.
    }

    /** The topic id of a topic name: a name-based UUID, so every process meets the same ids. */
    static Uuid topicId(String name) {
        UUID u = UUID.nameUUIDFromBytes(("assigncheck-topic:" + name).getBytes(StandardCharsets.UTF_8));
        return new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
    }

    /** One member as the coordinator's MemberSubscriptionAndAssignmentImpl holds it. */
    static final class Member implements MemberSubscription, MemberAssignment {
        final Optional<String> rack;
        final Optional<String> instance;
        final Set<Uuid> topics;
        final Map<Uuid, Set<Integer>> partitions;

        Member(Optional<String> rack, Optional<String> instance, Set<Uuid> topics, Map<Uuid, Set<Integer>> partitions) {
            this.rack = rack;
            this.instance = instance;
            this.topics = topics;
            this.partitions = partitions;
        }

        public Optional<String> rackId() { return rack; }
        public Optional<String> instanceId() { return instance; }
        public Set<Uuid> subscribedTopicIds() { return topics; }
        public Map<Uuid, Set<Integer>> partitions() { return partitions; }
        @Override public String toString() { return "Member(topics=" + topics + ", partitions=" + partitions + ")"; }
    }

    static final class Spec implements GroupSpec {
        final Map<String, Member> members;
        final SubscriptionType type;
        final Map<Uuid, Map<Integer, String>> owners;

        Spec(Map<String, Member> members, SubscriptionType type, Map<Uuid, Map<Integer, String>> owners) {
            this.members = members;
            this.type = type;
            this.owners = owners;
        }

        public Collection<String> memberIds() { return members.keySet(); }
        public SubscriptionType subscriptionType() { return type; }

        public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
            Map<Integer, String> byPartition = owners.get(topicId);
            return byPartition != null && byPartition.containsKey(partitionId);
        }

        public boolean isPartitionAssignable(Uuid topicId, int partitionId) { return true; }

        public MemberSubscription memberSubscription(String memberId) {
            Member m = members.get(memberId);
            if (m == null) throw new IllegalArgumentException("Member Id " + memberId + " not found.");
            return m;
        }

        public MemberAssignment memberAssignment(String memberId) {
            Member m = members.get(memberId);
            return m != null ? m : new Member(Optional.empty(), Optional.empty(), Collections.<Uuid>emptySet(),
                    Collections.<Uuid, Set<Integer>>emptyMap());
        }
    }

    static final class Describer implements SubscribedTopicDescriber {
        final Map<Uuid, Integer> counts;
        final Map<Uuid, List<Set<String>>> racks;

        Describer(Map<Uuid, Integer> counts, Map<Uuid, List<Set<String>>> racks) {
            this.counts = counts;
            this.racks = racks;
        }

        public int numPartitions(Uuid topicId) {
            Integer n = counts.get(topicId);
            return n == null ? -1 : n;
        }

        public Set<String> racksForPartition(Uuid topicId, int partition) {
            List<Set<String>> r = racks.get(topicId);
            return r == null || partition < 0 || partition >= r.size() ? Collections.<String>emptySet() : r.get(partition);
        }
    }

    String solve(Object id, Map<?, ?> problem) throws Exception {
        Set<String> notes = new LinkedHashSet<>();
        Object groupType = problem.get("group_type");
        if (!api.equals(groupType == null ? "classic" : groupType)) {
            notes.add("a " + (groupType == null ? "classic" : groupType) + " group run by a " + api
                    + " group's coordinator");
        }
        Map<Uuid, String> names = new HashMap<>();
        Map<Uuid, Integer> counts = new HashMap<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) problem.get("topics")).entrySet()) {
            Uuid tid = topicId((String) e.getKey());
            names.put(tid, (String) e.getKey());
            counts.put(tid, ((Number) e.getValue()).intValue());
        }
        Map<Uuid, List<Set<String>>> racks = new HashMap<>();
        Map<?, ?> rackDoc = (Map<?, ?>) problem.get("partition_racks");
        if (rackDoc != null) {
            for (Map.Entry<?, ?> e : rackDoc.entrySet()) {
                List<Set<String>> perPartition = new ArrayList<>();
                for (Object rs : (List<?>) e.getValue()) {
                    Set<String> set = new HashSet<>();
                    for (Object r : (List<?>) rs) set.add((String) r);
                    perPartition.add(Collections.unmodifiableSet(set));
                }
                racks.put(topicId((String) e.getKey()), perPartition);
            }
        }
        Map<String, Member> members = new HashMap<>();  // as TargetAssignmentBuilder.build makes memberSpecs
        Map<Uuid, Map<Integer, String>> owners = new HashMap<>();
        Map<String, Integer> subscribers = new HashMap<>();
        List<?> memberDocs = (List<?>) problem.get("members");
        for (Object o : memberDocs) {
            Map<?, ?> m = (Map<?, ?>) o;
            String memberId = (String) m.get("id");
            Set<Uuid> topics = new HashSet<>();
            for (Object t : (List<?>) m.get("subscription")) {
                subscribers.merge((String) t, 1, Integer::sum);
                Uuid tid = topicId((String) t);
                if (counts.containsKey(tid)) topics.add(tid);  // TopicIds resolves only names the metadata has
            }
            Map<Uuid, Set<Integer>> current = new HashMap<>();
            Map<?, ?> owned = (Map<?, ?>) m.get("owned");
            if (owned != null) {
                for (Map.Entry<?, ?> e : owned.entrySet()) {
                    Uuid tid = topicId((String) e.getKey());
                    names.putIfAbsent(tid, (String) e.getKey());
                    Set<Integer> ps = new HashSet<>();
                    for (Object p : (List<?>) e.getValue()) {
                        int partition = ((Number) p).intValue();
                        ps.add(partition);
                        owners.computeIfAbsent(tid, k -> new HashMap<>()).put(partition, memberId);
                    }
                    current.put(tid, Collections.unmodifiableSet(ps));
                }
            }
            members.put(memberId, new Member(Optional.ofNullable((String) m.get("rack")),
                    Optional.ofNullable((String) m.get("instance_id")), Collections.unmodifiableSet(topics),
                    Collections.unmodifiableMap(current)));
        }
        SubscriptionType type = SubscriptionType.HOMOGENEOUS;  // ModernGroup.subscriptionType, by name
        for (int n : subscribers.values()) {
            if (n != memberDocs.size()) type = SubscriptionType.HETEROGENEOUS;
        }
        Spec spec = new Spec(Collections.unmodifiableMap(members), type, owners);
        GroupAssignment result;
        try {
            result = assignor.assign(spec, new Describer(counts, racks));
        } catch (Throwable e) {
            return error(id, String.valueOf(e), e, String.join("; ", notes));
        }
        if (result == null || result.members() == null) {
            return "{\"format\":2,\"id\":" + id + ",\"error\":\"assign returned null\",\"exception\":"
                    + "\"null-result\",\"frame\":" + AssigncheckJson.quote(assignor.getClass().getName()
                    + ".assign") + AssigncheckBridge.adapted(String.join("; ", notes)) + "}";
        }
        return "{\"format\":2,\"id\":" + id + ",\"assignment\":" + assignmentJson(result, members, names, notes)
                + AssigncheckBridge.adapted(String.join("; ", notes)) + "}";
    }

    /** Each group member's target assignment as the coordinator keeps it, by topic name (an unknown id by its own
     *  text, which H2 then names), in the order the assignor listed the partitions. */
    private static String assignmentJson(GroupAssignment result, Map<String, Member> members, Map<Uuid, String> names,
                                         Set<String> notes) {
        for (String other : result.members().keySet()) {
            if (!members.containsKey(other)) {
                notes.add("the result names member " + other + ", not in the group: the coordinator ignores it");
            }
        }
        StringBuilder b = new StringBuilder(1 << 12).append('{');
        boolean firstMember = true;
        for (String memberId : new TreeSet<>(members.keySet())) {
            b.append(firstMember ? "" : ",").append(AssigncheckJson.quote(memberId)).append(":{");
            firstMember = false;
            MemberAssignment ma = result.members().get(memberId);
            Map<Uuid, Set<Integer>> parts = ma == null ? null : ma.partitions();
            Map<String, Set<Integer>> byTopic = new TreeMap<>();
            if (parts != null) {
                for (Map.Entry<Uuid, Set<Integer>> e : parts.entrySet()) {
                    String name = names.getOrDefault(e.getKey(), String.valueOf(e.getKey()));
                    if (e.getValue() != null && !e.getValue().isEmpty()) byTopic.put(name, e.getValue());
                }
            }
            boolean firstTopic = true;
            for (Map.Entry<String, Set<Integer>> t : byTopic.entrySet()) {
                b.append(firstTopic ? "" : ",").append(AssigncheckJson.quote(t.getKey())).append(":[");
                firstTopic = false;
                boolean first = true;
                for (Integer p : t.getValue()) {
                    b.append(first ? "" : ",").append(p == null ? "null" : String.valueOf(p.intValue()));
                    first = false;
                }
                b.append(']');
            }
            b.append('}');
        }
        return b.append('}').toString();
    }
}
