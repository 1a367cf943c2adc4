package io.leasehold.lock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The command timeout of every backend call, without a timer task per call. All calls of a client
 * have the same timeout, so the order they were sent in is the order their deadlines come in: they
 * wait in one FIFO, and one sweep on the engine's timer fails the overdue ones, drops the answered
 * ones, and sets itself again for the oldest call still waiting (at the latest {@link #PRUNE_NANOS}
 * later, so that answered calls do not pile up). While no call waits, no sweep is set.
 *
 * <p>Why: a timer task per call costs two operations on the timer's lock (schedule, cancel) and, each
 * time the new deadline is the earliest, a wake-up of the timer thread; on a busy client every acquire
 * and release paid them. A deadline is still kept exactly (the sweep runs at the oldest deadline).
 *
 * <p>This class is threadsafe.
 */
final class CommandTimeouts {

    /** How often answered calls are dropped from the FIFO while calls are being made. */
    static final long PRUNE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final EngineTimer timer;
    private final long timeoutNanos;
    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    /** Whether a sweep is set (or running); guards that at most one is. */
    private final AtomicBoolean sweepSet = new AtomicBoolean();

    CommandTimeouts(EngineTimer timer, long timeoutNanos) {
        this.timer = timer;
        this.timeoutNanos = timeoutNanos;
    }

    /**
     * Fails {@code call} with {@code timeout}'s exception unless it completes within the command
     * timeout from {@code sentNanos} (on the engine's ticker).
     */
    void watch(CompletableFuture<Object> call, long sentNanos, Supplier<? extends Throwable> timeout) {
        pending.add(new Pending(sentNanos + timeoutNanos, call, timeout));
        if (sweepSet.compareAndSet(false, true)) {
            timer.scheduleAt(this::sweep, sentNanos + Math.min(timeoutNanos, PRUNE_NANOS));
        }
    }

    /**
     * Fails every call still waiting with {@code why}'s exception: for the client's close, which stops
     * the timer that would have timed them out, so that no caller (a {@code release()} blocked on a
     * Redis that stopped answering) waits past the close for a backend that may never answer.
     */
    void failAll(Supplier<? extends Throwable> why) {
        for (Pending waiting = pending.poll(); waiting != null; waiting = pending.poll()) {
            if (!waiting.call.isDone()) {
                waiting.call.completeExceptionally(why.get());
            }
        }
    }

    /** Calls waiting (answered ones not yet dropped included), for tests. */
    int size() {
        return pending.size();
    }

    private void sweep() {
        long now = timer.now();
        while (true) {
            Pending oldest = pending.peek();
            if (oldest == null) {
                sweepSet.set(false);
                // A call added after the peek saw the sweep still set and did not set one: take over.
                if (pending.isEmpty() || !sweepSet.compareAndSet(false, true)) {
                    return;
                }
                continue;
            }
            if (oldest.call.isDone()) {
                pending.poll();
            } else if (now - oldest.deadlineNanos >= 0) {
                pending.poll();
                oldest.call.completeExceptionally(oldest.timeout.get());
            } else {
                // At an absolute time: the clock may move between the reading above and the scheduling.
                timer.scheduleAt(this::sweep, Math.min(oldest.deadlineNanos, now + PRUNE_NANOS));
                return;
            }
        }
    }

    /** A call waiting for its reply or its deadline. */
    private record Pending(long deadlineNanos, CompletableFuture<Object> call, Supplier<? extends Throwable> timeout) {}
}
