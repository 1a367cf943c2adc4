package io.leasehold.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Acquire + release pairs of the quorum group: {@code workers} threads over {@code clients} clients,
 * each on its own key (uncontended) or all on one key (contended). After a warm-up it counts pairs in a
 * measured window, with every node's commands over the same window (summed over the nodes: a quorum's
 * cost is on all of its members), and each acquire's latency (from the call to the lease in hand; under
 * contention that includes the wait for the holder).
 */
final class QuorumScenario {

    private static final int MAX_SAMPLES_PER_WORKER = 1_000_000;
    private static final String CONTENDED_KEY = "bench:quorum:contended";

    private final String name;
    private final int workers;
    private final int clients;
    private final boolean contended;

    private QuorumScenario(String name, int workers, int clients, boolean contended) {
        this.name = name;
        this.workers = workers;
        this.clients = clients;
        this.contended = contended;
    }

    static QuorumScenario uncontended(int workers) {
        return new QuorumScenario(
                "quorum: uncontended, " + workers + " worker" + (workers == 1 ? "" : "s"), workers, 1, false);
    }

    static QuorumScenario contended(int workers, int clients) {
        return new QuorumScenario(
                "quorum: contended, " + workers + " workers, " + clients + " client" + (clients == 1 ? "" : "s"),
                workers,
                clients,
                true);
    }

    String name() {
        return name;
    }

    int clients() {
        return clients;
    }

    Measurement run(Contender contender, List<RedisProbe> nodes, Duration warmUp, Duration window) throws Exception {
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(workers);
        LongAdder pairs = new LongAdder();
        long[][] latencies = new long[workers][];
        int[] sampled = new int[workers];
        Flags flags = new Flags();
        for (int i = 0; i < workers; i++) {
            int id = i;
            latencies[id] = new long[1024];
            Thread thread = new Thread(
                    () -> {
                        try {
                            Contender.Worker worker = contender.worker(id % clients);
                            String key = contended ? CONTENDED_KEY : "bench:quorum:uncontended:" + id;
                            while (!flags.stopping) {
                                long start = System.nanoTime();
                                worker.acquire(key);
                                long took = System.nanoTime() - start;
                                if (flags.measuring) {
                                    pairs.increment();
                                    if (sampled[id] < MAX_SAMPLES_PER_WORKER) {
                                        if (sampled[id] == latencies[id].length) {
                                            latencies[id] = Arrays.copyOf(latencies[id], latencies[id].length * 2);
                                        }
                                        latencies[id][sampled[id]++] = took;
                                    }
                                }
                                worker.release();
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                            flags.stopping = true;
                        } finally {
                            stopped.countDown();
                        }
                    },
                    "bench-quorum-worker-" + i);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
        RedisProbe.Snapshot[] before = new RedisProbe.Snapshot[nodes.size()];
        long elapsedNanos;
        long commands = 0;
        long calls = 0;
        try {
            Thread.sleep(warmUp.toMillis());
            for (int n = 0; n < nodes.size(); n++) {
                before[n] = nodes.get(n).snapshot();
            }
            long startNanos = System.nanoTime();
            flags.measuring = true;
            Thread.sleep(window.toMillis());
            flags.measuring = false;
            elapsedNanos = System.nanoTime() - startNanos;
            // as in the other groups, the pairs that run while the nodes are read count on the server side
            // too (a few, against thousands)
            for (int n = 0; n < nodes.size(); n++) {
                RedisProbe.Snapshot used = nodes.get(n).snapshot().minus(before[n]);
                commands += used.commands();
                calls += used.calls();
            }
        } finally {
            flags.stopping = true;
        }
        if (!stopped.await(2, TimeUnit.MINUTES)) {
            throw new IllegalStateException(
                    contender.name() + ": workers did not stop within 2 minutes in '" + name + "'");
        }
        if (failure.get() != null) {
            throw new IllegalStateException(contender.name() + " failed in '" + name + "'", failure.get());
        }
        long total = pairs.sum();
        int samples = Arrays.stream(sampled).sum();
        long[] all = new long[samples];
        int at = 0;
        for (int i = 0; i < workers; i++) {
            System.arraycopy(latencies[i], 0, all, at, sampled[i]);
            at += sampled[i];
        }
        Arrays.sort(all);
        return Measurement.of(name, contender.name())
                .put(Figures.OPS_PER_SECOND, total / (elapsedNanos / 1e9))
                .put(Figures.CALLS_PER_OP, (double) calls / total)
                .put(Figures.COMMANDS_PER_OP, (double) commands / total)
                .put(Figures.ACQUIRE_P99_MICROS, Stats.percentile(all, 99) / 1e3)
                .build();
    }

    private static final class Flags {
        volatile boolean measuring;
        volatile boolean stopping;
    }
}
