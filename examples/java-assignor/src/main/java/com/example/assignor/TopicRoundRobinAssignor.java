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
 * Deals each topic's partitions round-robin over that topic's subscribers in member id order: partition p of a topic
 * with n subscribers goes to the (p mod n)-th. Each member's share of a topic is within one of every other
 * subscriber's (assigncheck's {@code balance=per-topic} promise).
 */
public final class TopicRoundRobinAssignor implements ConsumerPartitionAssignor {
    @Override
    public String name() {
        return "topic-round-robin";
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription group) {
        Map<String, Subscription> members = group.groupSubscription();
        // Members sorted by id: the leader receives them in no particular order, and every leader must agree.
        Map<String, List<TopicPartition>> owned = new TreeMap<>();
        Map<String, List<String>> subscribers = new TreeMap<>();
        for (String member : new TreeSet<>(members.keySet())) {
            owned.put(member, new ArrayList<>());
            for (String topic : members.get(member).topics()) {
                subscribers.computeIfAbsent(topic, t -> new ArrayList<>()).add(member);
            }
        }
        for (Map.Entry<String, List<String>> e : subscribers.entrySet()) {
            Integer partitions = metadata.partitionCountForTopic(e.getKey());
            if (partitions == null) continue;  // subscribed to, but not in the metadata (not created yet)
            List<String> dealTo = e.getValue();
            for (int p = 0; p < partitions; p++) {
                owned.get(dealTo.get(p % dealTo.size())).add(new TopicPartition(e.getKey(), p));
            }
        }
        Map<String, Assignment> assignment = new HashMap<>();
        owned.forEach((member, partitions) -> assignment.put(member, new Assignment(partitions)));
        return new GroupAssignment(assignment);
    }
}
