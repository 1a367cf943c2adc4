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
 * a warm-up, it counts pairs in a measured window, with the server's commands and CPU, and this
 * JVM's CPU ({@link ProcessCpu}), over the same window. Contended, it also records the order of
 * holders (how often the holder changed, how evenly the workers were served) and the handoff
 * latency: from the moment a holder starts its release to
 * the moment another worker has the lock. A fair lock whose queue the audit can read is audited
 * over the window ({@link FifoAudit}): how many grants its FIFO check covered, and how many
 * violations it found.
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
    private final boolean fifoAudit;

    ThroughputScenario(String name, int workers, int clients, boolean contended, boolean fifoAudit) {
        this.name = name;
        this.workers = workers;
        this.clients = clients;
        this.contended = contended;
        this.fifoAudit = fifoAudit;
    }

    static ThroughputScenario uncontended(int workers) {
        return new ThroughputScenario(
                "uncontended, " + workers + " worker" + (workers == 1 ? "" : "s"), workers, 1, false, false);
    }

    /** {@code fifoAudit}: audit the FIFO order of a fair lock's run (see {@link FifoAudit}). */
    static ThroughputScenario contended(int workers, int clients, boolean fifoAudit) {
        return new ThroughputScenario(
                "contended, " + workers + " workers, " + clients + " client" + (clients == 1 ? "" : "s"),
                workers,
                clients,
                true,
                fifoAudit);
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
        FifoAudit.Keys audited = contended && fifoAudit ? contender.fifoKeys(CONTENDED_KEY) : null;
        Run run = new Run(contender);
        run.start();
        Thread.sleep(warmUp.toMillis());
        try (FifoAudit audit = audited == null ? null : FifoAudit.open(redis.endpoint(), audited)) {
            RedisProbe.Snapshot before = redis.snapshot();
            if (audit != null) {
                audit.start();
            }
            long startCpuNanos = ProcessCpu.nanos();
            long startNanos = System.nanoTime();
            run.measuring = true;
            Thread.sleep(window.toMillis());
            // the audit's last commands come before the snapshot that ends the window: all of them are taken out
            // (its check runs after the window)
            FifoAudit.Outcome fifo = audit == null ? null : audit.stop();
            run.measuring = false;
            long elapsedNanos = System.nanoTime() - startNanos;
            long cpuNanos = ProcessCpu.nanos() - startCpuNanos - (fifo == null ? 0 : fifo.threadCpuMicros() * 1_000);
            RedisProbe.Snapshot used = redis.snapshot().minus(before);
            if (fifo != null) {
                used = used.minus(fifo.load());
            }
            run.stop();
            return measurement(contender, run, used, elapsedNanos, cpuNanos, fifo);
        } catch (Exception e) {
            run.stopping = true; // the workers must not outlive a run that failed (its audit, its probe)
            throw e;
        }
    }

    private Measurement measurement(
            Contender contender,
            Run run,
            RedisProbe.Snapshot used,
            long elapsedNanos,
            long clientCpuNanos,
            FifoAudit.Outcome fifo) {
        long pairs = run.pairs.sum();
        double seconds = elapsedNanos / 1e9;
        Measurement.Builder result = Measurement.of(name, contender.name())
                .put(Figures.OPS_PER_SECOND, pairs / seconds)
                .put(Figures.CALLS_PER_OP, (double) used.calls() / pairs)
                .put(Figures.COMMANDS_PER_OP, (double) used.commands() / pairs)
                .put(Figures.CPU_MICROS_PER_OP, used.cpuSeconds() * 1e6 / pairs)
                .put(Figures.CLIENT_CPU_MICROS_PER_OP, clientCpuNanos / 1e3 / pairs);
        if (contended) {
            run.addFairness(result);
        }
        if (fifo != null) {
            FifoCheck.Result fifoOrder = fifo.check();
            result.put(Figures.FIFO_CHECKED_GRANTS, fifoOrder.checkedGrants());
            result.put(Figures.FIFO_VIOLATIONS, fifoOrder.violations());
            tell(contender, fifo, fifoOrder, elapsedNanos);
        }
        return result.build();
    }

    /** The audit's figures and cost on the console, and the first violations it found, told (the report only counts them). */
    private void tell(Contender contender, FifoAudit.Outcome fifo, FifoCheck.Result fifoOrder, long elapsedNanos) {
        BenchMain.say(
                "  FIFO audit of %s: %,d samples, %,d grant messages, %,d grants checked, %d violations;"
                        + " its samples took %.1f ms of server time (%.1f µs each, %.2f %% of the window),"
                        + " its threads %.1f ms of CPU here (%.2f %% of the window)",
                contender.name(),
                fifo.samples().size(),
                fifo.grantMessages().size(),
                fifoOrder.checkedGrants(),
                fifoOrder.violations(),
                fifo.sampleMicros() / 1e3,
                fifo.samples().isEmpty()
                        ? 0.0
                        : (double) fifo.sampleMicros() / fifo.samples().size(),
                100.0 * fifo.sampleMicros() * 1e3 / elapsedNanos,
                fifo.threadCpuMicros() / 1e3,
                100.0 * fifo.threadCpuMicros() * 1e3 / elapsedNanos);
        for (String violation : fifoOrder.examples()) {
            BenchMain.say("  FIFO VIOLATION (%s, %s): %s", contender.name(), name, violation);
        }
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
