// One member of a live group: Kafka's Java consumer (classic protocol with any ConsumerPartitionAssignor, or the
// KIP-848 consumer protocol), writing the same JSON-lines timeline as live/member.py (see its docstring), quoted by
// the bridge's AssigncheckJson (compiled with it: live/members.py).
// Usage: io.assigncheck.live.LiveMember PROTOCOL ASSIGNOR NAME GROUP BOOTSTRAP LOG TOPICS INSTANCE_ID ("-" for none);
// commands on stdin: "subscribe a,b", "slow SECONDS", "leave".

package io.assigncheck.live;

import java.io.BufferedReader;
import java.io.FileWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.assigncheck.bridge.AssigncheckJson;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public final class LiveMember {
    private static PrintWriter out;
    private static KafkaConsumer<byte[], byte[]> consumer;
    private static volatile double slowSeconds = 0;

    private static String quote(String s) {
        return s == null ? "null" : AssigncheckJson.quote(s);
    }

    private static synchronized void write(String event, Collection<TopicPartition> partitions) {
        List<TopicPartition> sorted = new ArrayList<>(partitions);
        sorted.sort((a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition())
                                                           : a.topic().compareTo(b.topic()));
        StringBuilder line = new StringBuilder();
        line.append("{\"t\": ").append(System.nanoTime() / 1e9).append(", \"event\": ").append(quote(event));
        line.append(", \"partitions\": [");
        for (int i = 0; i < sorted.size(); i++) {
            line.append(i > 0 ? ", " : "").append("[").append(quote(sorted.get(i).topic())).append(", ")
                .append(sorted.get(i).partition()).append("]");
        }
        Integer generation = null;
        String memberId = null;
        try {
            generation = consumer.groupMetadata().generationId();
            memberId = consumer.groupMetadata().memberId();
        } catch (RuntimeException e) {
            // no group metadata yet
        }
        line.append("], \"generation\": ").append(generation).append(", \"member_id\": ").append(quote(memberId));
        out.println(line.append("}"));
        out.flush();
    }

    private static void sleep() {
        try {
            Thread.sleep((long) (slowSeconds * 1000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) throws IOException {
        String protocol = args[0], assignor = args[1], name = args[2], group = args[3], bootstrap = args[4];
        out = new PrintWriter(new FileWriter(args[5], StandardCharsets.UTF_8, true));
        List<String> topics = Arrays.asList(args[6].split(","));
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("client.id", name);
        p.put("enable.auto.commit", "false");
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        p.put("group.protocol", protocol);
        p.put("metadata.max.age.ms", "1000");
        if (protocol.equals("classic")) {
            p.put("partition.assignment.strategy", assignor);
            p.put("session.timeout.ms", "6000");
            p.put("heartbeat.interval.ms", "500");
        } else if (!assignor.equals("-")) {
            p.put("group.remote.assignor", assignor);
        }
        if (!args[7].equals("-")) p.put("group.instance.id", args[7]);
        consumer = new KafkaConsumer<>(p);
        ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                write("assigned", partitions);
                sleep();
            }

            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                sleep();
                write("revoked", partitions);
            }

            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                sleep();
                write("lost", partitions);
            }
        };
        ConcurrentLinkedQueue<String> commands = new ConcurrentLinkedQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) commands.add(line.trim());
            } catch (IOException e) {
                // the harness went away: leave
            }
            commands.add("leave");
        });
        reader.setDaemon(true);
        reader.start();
        consumer.subscribe(topics, listener);
        write("started", List.of());
        while (true) {
            consumer.poll(Duration.ofMillis(100));
            String command = commands.poll();
            if (command == null) continue;
            if (command.equals("leave")) break;
            if (command.startsWith("subscribe ")) consumer.subscribe(Arrays.asList(command.substring(10).split(",")), listener);
            if (command.startsWith("slow ")) slowSeconds = Double.parseDouble(command.substring(5));
        }
        consumer.close();
        write("closed", List.of());
        System.exit(0);
    }
}
