package io.leasehold.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Acquire + release pairs in a loop on {@code workers} threads spread over {@code clients} clients:
 * each on its own key (uncontended), or all on one key (contended, where a pair is a handoff). After
 * a warm-up, it counts pairs in a measured window, with the server's commands and CPU over the same
 * window. Contended, it also records the order of holders (how often the holder changed, how evenly
 * the workers were served) and the handoff latency: from the moment a holder starts its release to
 * the moment another worker has the lock.
 *
 * <p>The holder sequence and latencies are written inside the critical section, so one worker writes
 * at a time; atomic arrays make them visible across threads whatever the lock's own memory effects.
 */
final class ThroughputScenario implements Scenario {

    private static final int MAX_SAMPLES = 4_000_000;
    private static final String CONTENDED_KEY = "bench:contended";

    private final String name;
    private final int workers;
    private final int clients;
    private final boolean contended;

    ThroughputScenario(String name, int workers, int clients, boolean contended) {
        this.name = name;
        this.workers = workers;
        this.clients = clients;
        this.contended = contended;
    }

    static ThroughputScenario uncontended(int workers) {
        return new ThroughputScenario(
                "uncontended, " + workers + " worker" + (workers == 1 ? "" : "s"), workers, 1, false);
    }

    static ThroughputScenario contended(int workers, int clients) {
        return new ThroughputScenario(
                "contended, " + workers + " workers, " + clients + " client" + (clients == 1 ? "" : "s"),
                workers,
                clients,
                true);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int clients() {
        return clients;
    }

    @Override
    public boolean appliesTo(Contender contender) {
        if (contender.fair()) {
            return contended && clients > 1; // order across clients is what a fair lock is for
        }
        return !contended || contender.waits();
    }

    @Override
    public Measurement run(Contender contender, RedisProbe redis, Duration warmUp, Duration window) throws Exception {
        Run run = new Run(contender);
        run.start();
        Thread.sleep(warmUp.toMillis());
        RedisProbe.Snapshot before = redis.snapshot();
        long startNanos = System.nanoTime();
        run.measuring = true;
        Thread.sleep(window.toMillis());
        run.measuring = false;
        long elapsedNanos = System.nanoTime() - startNanos;
        RedisProbe.Snapshot used = redis.snapshot().minus(before);
        run.stop();

        long pairs = run.pairs.sum();
        double seconds = elapsedNanos / 1e9;
        Measurement.Builder result = Measurement.of(name, contender.name())
                .put(Figures.OPS_PER_SECOND, pairs / seconds)
                .put(Figures.CALLS_PER_OP, (double) used.calls() / pairs)
                .put(Figures.COMMANDS_PER_OP, (double) used.commands() / pairs)
                .put(Figures.CPU_MICROS_PER_OP, used.cpuSeconds() * 1e6 / pairs);
        if (contended) {
            run.addFairness(result);
        }
        return result.build();
    }

    /** The worker threads of one run and what they recorded. */
    private final class Run {
        private final Contender contender;
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final CountDownLatch stopped = new CountDownLatch(workers);
        final LongAdder pairs = new LongAdder();
        private final AtomicInteger sequenceLength = new AtomicInteger();
        private final AtomicIntegerArray holders;
        private final AtomicLongArray handoffNanos;
        private final AtomicInteger handoffCount = new AtomicInteger();
        private final long[] perWorker = new long[workers];
        /** When the last holder started its release, and who it was (contended only). */
        private volatile long releaseStartedNanos;

        private volatile int lastHolder = -1;
        volatile boolean measuring;
        private volatile boolean stopping;

        Run(Contender contender) {
            this.contender = contender;
            this.holders = new AtomicIntegerArray(contended ? MAX_SAMPLES : 0);
            this.handoffNanos = new AtomicLongArray(contended ? MAX_SAMPLES : 0);
        }

        void start() {
            for (int i = 0; i < workers; i++) {
                int id = i;
                Thread thread = new Thread(() -> loop(id), "bench-worker-" + i);
                thread.setDaemon(true);
                threads.add(thread);
            }
            threads.forEach(Thread::start);
        }

        private void loop(int id) {
            try {
                Contender.Worker worker = contender.worker(id % clients);
                String key = contended ? CONTENDED_KEY : "bench:uncontended:" + id;
                while (!stopping) {
                    worker.acquire(key);
                    if (measuring) {
                        record(id);
                    }
                    if (contended) {
                        lastHolder = id;
                        releaseStartedNanos = System.nanoTime();
                    }
                    worker.release();
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
                stopping = true;
            } finally {
                stopped.countDown();
            }
        }

        private void record(int id) {
            pairs.increment();
            if (!contended) {
                return;
            }
            long now = System.nanoTime();
            perWorker[id]++; // only the holder writes, and the count is read after every thread ended
            int at = sequenceLength.getAndIncrement();
            if (at < MAX_SAMPLES) {
                holders.set(at, id);
            }
            int previous = lastHolder;
            if (previous >= 0 && previous != id) {
                int sample = handoffCount.getAndIncrement();
                if (sample < MAX_SAMPLES) {
                    handoffNanos.set(sample, now - releaseStartedNanos);
                }
            }
        }

        void stop() throws Exception {
            stopping = true;
            if (!stopped.await(2, java.util.concurrent.TimeUnit.MINUTES)) {
                throw new IllegalStateException(
                        contender.name() + ": workers did not stop within 2 minutes in '" + name + "'");
            }
            if (failure.get() != null) {
                throw new IllegalStateException(contender.name() + " failed in '" + name + "'", failure.get());
            }
        }

        void addFairness(Measurement.Builder result) {
            int length = Math.min(sequenceLength.get(), MAX_SAMPLES);
            int changed = 0;
            for (int i = 1; i < length; i++) {
                if (holders.get(i) != holders.get(i - 1)) {
                    changed++;
                }
            }
            result.put(Figures.HOLDER_CHANGED, length < 2 ? 0 : 100.0 * changed / (length - 1));
            result.put(Figures.WORKER_SPREAD, Stats.coefficientOfVariationPercent(perWorker));
            long[] samples = new long[Math.min(handoffCount.get(), MAX_SAMPLES)];
            for (int i = 0; i < samples.length; i++) {
                samples[i] = handoffNanos.get(i);
            }
            Arrays.sort(samples);
            result.put(Figures.HANDOFF_P50_MICROS, Stats.percentile(samples, 50) / 1e3);
            result.put(Figures.HANDOFF_P99_MICROS, Stats.percentile(samples, 99) / 1e3);
        }
    }
}
