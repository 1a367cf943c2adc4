package io.leasehold.bench;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a dead waiter costs a fair queue: a holder (client 0), then a waiter whose client will die
 * (it heads the queue), then a live waiter behind it; the dying client is ended as a killed process
 * would be (its connections gone, no clean-up), the holder releases, and the time until the live
 * waiter holds the lock is measured. {@link #SAMPLES} such rounds, each with its own pair of clients
 * and lock; the figures are their median and maximum, a sample whose live waiter did not get the lock
 * within {@link #GRANTED_WITHIN} counting as that long (and counted as not granted).
 */
final class DeadWaiterScenario implements Scenario {

    static final int SAMPLES = 3;
    private static final Duration QUEUED_WITHIN = Duration.ofSeconds(10);
    static final Duration GRANTED_WITHIN = Duration.ofSeconds(30);

    @Override
    public String name() {
        return "a dead waiter at the head of a fair queue";
    }

    @Override
    public int clients() {
        return 1 + 2 * SAMPLES; // the holder's, then a dying and a live waiter's per sample
    }

    @Override
    public boolean appliesTo(Contender contender) {
        return contender.fair();
    }

    @Override
    public Measurement run(Contender contender, RedisProbe redis, Duration warmUp, Duration window) throws Exception {
        double[] gaps = new double[SAMPLES];
        int notGranted = 0;
        for (int s = 0; s < SAMPLES; s++) {
            String key = "bench:dead-waiter:" + s;
            Contender.Worker holder = contender.worker(0);
            holder.acquire(key);
            int dying = 1 + 2 * s;
            background(contender.worker(dying), key, "dying waiter " + s); // never released: its client dies
            awaitQueued(contender, redis, key, 1);
            long[] acquiredAt = new long[1];
            Contender.Worker live = contender.worker(dying + 1);
            CompletableFuture<Void> liveHolds =
                    background(live, key, "live waiter " + s).thenRun(() -> acquiredAt[0] = System.nanoTime());
            awaitQueued(contender, redis, key, 2);
            contender.kill(dying);
            long releasedAt = System.nanoTime();
            holder.release();
            try {
                liveHolds.get(GRANTED_WITHIN.toSeconds(), TimeUnit.SECONDS);
                gaps[s] = (acquiredAt[0] - releasedAt) / 1e6;
                live.release();
            } catch (TimeoutException stuck) {
                gaps[s] = GRANTED_WITHIN.toMillis(); // (its thread is a daemon; closing the contender ends it)
                notGranted++;
            }
        }
        return Measurement.of(name(), contender.name())
                .put(Figures.DEAD_WAITER_MS, Stats.median(gaps))
                .put(Figures.DEAD_WAITER_MAX_MS, Arrays.stream(gaps).max().orElse(Double.NaN))
                .put(Figures.NOT_GRANTED, notGranted)
                .build();
    }

    /** {@code worker}'s acquire of {@code key} on a daemon thread; completes when it holds the lock. */
    private static CompletableFuture<Void> background(Contender.Worker worker, String key, String who) {
        CompletableFuture<Void> holds = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        worker.acquire(key);
                        holds.complete(null);
                    } catch (Throwable e) {
                        holds.completeExceptionally(e);
                    }
                },
                "bench-" + who.replace(' ', '-'));
        thread.setDaemon(true);
        thread.start();
        return holds;
    }

    private static void awaitQueued(Contender contender, RedisProbe redis, String key, long waiters)
            throws InterruptedException {
        long deadline = System.nanoTime() + QUEUED_WITHIN.toNanos();
        while (contender.queued(redis, key) < waiters) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(contender.name() + ": " + waiters + " waiter(s) of " + key
                        + " not queued in Redis within " + QUEUED_WITHIN);
            }
            Thread.sleep(5);
        }
    }
}
