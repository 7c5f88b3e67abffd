// The Java side of `benchmarks/bench_java.py`: times a Kafka ConsumerPartitionAssignor on assigncheck problem files.
//
// Usage: java BenchAssignors CLASS=PROBLEM.json [...]; one JSON line per job on stdout.
// Each call gets fresh inputs: the group is rebuilt (member-side instances, userData, the wire round trip, a new
// Cluster) by the bridge's Driver.prepare outside the timed region, and a fresh leader instance assigns it, as in
// the `java:` target. Warm-up calls first (the JIT compiles the hot paths), then timed calls; each timed call
// reports its CPU time: the assigning thread's own (ThreadMXBean, nanoseconds) plus the collections it caused
// (run with -XX:+UseSerialGC, so every collection is a pause of one thread, counted in milliseconds by the GC
// beans; the process CPU clock ticks in 10 ms steps, too coarse for the small scenarios). Also the thread CPU
// alone and the wall time. The last call's assignment is printed for the quality checks.

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import io.assigncheck.bridge.AssigncheckBridge;
import io.assigncheck.bridge.AssigncheckJson;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;

public final class BenchAssignors {
    // Warm-up: at least 1 call, more while under both limits. Timed: at least 3 calls, more while under both.
    static final int WARM_MAX = 20, TIMED_MIN = 3, TIMED_MAX = 9;
    static final double WARM_S = 5.0, TIMED_S = 20.0;

    public static void main(String[] args) throws Exception {
        for (String job : args) {
            int eq = job.indexOf('=');
            System.out.println(run(job.substring(0, eq), job.substring(eq + 1)));
            System.out.flush();
        }
    }

    static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    static String run(String className, String file) throws Exception {
        Map<?, ?> problem = (Map<?, ?>) new AssigncheckJson(
                new String(Files.readAllBytes(Paths.get(file)), StandardCharsets.UTF_8)).parse();
        AssigncheckBridge.Driver driver = AssigncheckBridge.Driver.load(className, Collections.emptyMap());
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = System.nanoTime();
        int warm = 0;
        while (warm < 1 || (warm < WARM_MAX && (System.nanoTime() - start) / 1e9 < WARM_S)) {
            driver.assign(driver.prepare(problem));
            warm++;
        }
        List<Double> cpu = new ArrayList<>(), thread = new ArrayList<>(), wall = new ArrayList<>();
        GroupAssignment last = null;
        String adapted = "";
        start = System.nanoTime();
        while (cpu.size() < TIMED_MIN || (cpu.size() < TIMED_MAX && (System.nanoTime() - start) / 1e9 < TIMED_S)) {
            AssigncheckBridge.Prepared prepared = driver.prepare(problem);  // fresh inputs, not timed
            adapted = String.join("; ", prepared.notes);
            System.gc();
            long g0 = gcMillis(), t0 = threads.getCurrentThreadCpuTime(), w0 = System.nanoTime();
            last = driver.assign(prepared);
            long w1 = System.nanoTime(), t1 = threads.getCurrentThreadCpuTime(), g1 = gcMillis();
            cpu.add((t1 - t0) / 1e6 + (g1 - g0));
            thread.add((t1 - t0) / 1e6);
            wall.add((w1 - w0) / 1e6);
        }
        return "{\"class\":" + AssigncheckJson.quote(className) + ",\"file\":" + AssigncheckJson.quote(file)
                + ",\"kafka\":" + AssigncheckJson.quote(AssigncheckBridge.Compat.kafkaVersion())
                + ",\"warmup\":" + warm + ",\"cpu_ms\":" + cpu + ",\"thread_ms\":" + thread + ",\"wall_ms\":" + wall
                + ",\"adapted\":" + AssigncheckJson.quote(adapted)
                + ",\"assignment\":" + AssigncheckBridge.assignmentJson(last) + "}";
    }
}
