package com.example.assignor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

/**
 * {@link TopicRoundRobinAssignor} with a planted bug for assigncheck to find: it deals each topic's partitions over
 * the whole group instead of over the topic's subscribers. With equal subscriptions nothing shows; with unequal
 * ones a member gets partitions of a topic it does not subscribe to (assigncheck's H3).
 */
public final class PlantedBugAssignor implements ConsumerPartitionAssignor {
    @Override
    public String name() {
        return "planted-bug";
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription group) {
        Map<String, Subscription> members = group.groupSubscription();
        Map<String, List<TopicPartition>> owned = new TreeMap<>();
        Map<String, List<String>> subscribers = new TreeMap<>();
        for (String member : new TreeSet<>(members.keySet())) {
            owned.put(member, new ArrayList<>());
            for (String topic : members.get(member).topics()) {
                subscribers.computeIfAbsent(topic, t -> new ArrayList<>()).add(member);
            }
        }
        List<String> everyone = new ArrayList<>(owned.keySet());
        for (Map.Entry<String, List<String>> e : subscribers.entrySet()) {
            Integer partitions = metadata.partitionCountForTopic(e.getKey());
            if (partitions == null) continue;
            List<String> dealTo = everyone;  // the bug: the whole group, not e.getValue()
            for (int p = 0; p < partitions; p++) {
                owned.get(dealTo.get(p % dealTo.size())).add(new TopicPartition(e.getKey(), p));
            }
        }
        Map<String, Assignment> assignment = new HashMap<>();
        owned.forEach((member, partitions) -> assignment.put(member, new Assignment(partitions)));
        return new GroupAssignment(assignment);
    }
}
