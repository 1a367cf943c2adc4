package io.leasehold.lock.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The queue in front of the client's event thread, bounded so that a slow or stuck listener cannot
 * make the engine hold events without limit, and never blocking whoever enqueues (a driver's I/O
 * thread, the timer, a caller).
 *
 * <p>Two kinds of task: one that {@linkplain #offer may be dropped}, admitted only while fewer than
 * {@code bound} tasks wait (a drop is counted), and one that {@linkplain #put must not be}, admitted
 * whatever the count. {@link Listeners} decides which is which so that the tasks past the bound stay
 * few: an ending is admitted unconditionally only when its start was, so their number is limited by
 * the leases and waits alive, not by the rate of events. Drops are reported on the event thread, once
 * the queue is down to half the bound: {@code dropsReported} receives how many were dropped since the
 * last report.
 *
 * <p>After the event thread stops (the client closed), every task is refused and nothing is counted:
 * events after close are not reported.
 *
 * <p>This class is threadsafe.
 */
final class EventQueue {

    private final Executor events;
    private final int bound;
    private final LongConsumer dropsReported;
    /** Tasks enqueued and not started yet. */
    private final AtomicInteger waiting = new AtomicInteger();
    /** Tasks dropped since the last report. */
    private final AtomicLong dropped = new AtomicLong();

    /**
     * @param events        runs the tasks one after another (the client's event thread); its own queue
     *                      must not refuse tasks while it runs, since this class does the bounding
     * @param bound         how many tasks may wait before droppable ones are dropped
     * @param dropsReported called on the event thread with the number of tasks dropped since its last call
     */
    EventQueue(Executor events, int bound, LongConsumer dropsReported) {
        if (bound < 2) {
            throw new IllegalArgumentException("bound must be at least 2, but was " + bound);
        }
        this.events = events;
        this.bound = bound;
        this.dropsReported = dropsReported;
    }

    int bound() {
        return bound;
    }

    /**
     * Enqueues {@code task} if fewer than the bound wait; otherwise drops it and counts the drop.
     *
     * @return whether the task was enqueued (false if dropped, or if the event thread has stopped)
     */
    boolean offer(Runnable task) {
        int now;
        do {
            now = waiting.get();
            if (now >= bound) {
                dropped.incrementAndGet();
                return false;
            }
        } while (!waiting.compareAndSet(now, now + 1));
        return execute(task);
    }

    /** Enqueues {@code task} whatever the count: for events that must not be lost (see the class doc). */
    void put(Runnable task) {
        waiting.incrementAndGet();
        execute(task);
    }

    /** Tasks waiting now (for tests and diagnostics). */
    int waiting() {
        return waiting.get();
    }

    private boolean execute(Runnable task) {
        try {
            events.execute(() -> run(task));
            return true;
        } catch (RejectedExecutionException closed) {
            waiting.decrementAndGet(); // the client has closed: events after close are not reported
            return false;
        }
    }

    /** On the event thread: runs a task, then reports drops once the queue has room again. */
    private void run(Runnable task) {
        waiting.decrementAndGet();
        try {
            task.run();
        } finally {
            if (dropped.get() > 0 && waiting.get() <= bound / 2) {
                long count = dropped.getAndSet(0);
                if (count > 0) {
                    dropsReported.accept(count);
                }
            }
        }
    }
}
