package io.leasehold.lock.internal;

import io.leasehold.lock.Ticker;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine's one timer thread ({@code leasehold-timer-<client>}): renewal rounds, loss deadlines,
 * waits, fallback retries and command timeouts. Tasks run here must be short and must never run
 * user code, so that nothing a user does can delay a renewal or a loss signal.
 *
 * <p>Delays are measured on the client's {@link Ticker}. With the system ticker a task is simply
 * scheduled on the thread; with any other ticker (a test's hand-moved clock) tasks wait in a queue
 * ordered by their ticker deadline, and the thread checks that queue every millisecond, so that moving
 * the ticker fires whatever became due.
 *
 * <p>This class is threadsafe.
 */
final class EngineTimer {

    /** How often a custom ticker is read to find tasks that became due. */
    private static final long PUMP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** A scheduled task that can be cancelled. */
    interface Timeout {
        /** Stops the task if it has not run; idempotent. */
        void cancel();
    }

    private static final Timeout NONE = () -> {};

    private final Ticker ticker;
    private final boolean systemTicker;
    private final ScheduledThreadPoolExecutor thread;
    private final PriorityQueue<TickerTask> due = new PriorityQueue<>(); // guarded by itself; custom ticker only
    private final AtomicLong sequence = new AtomicLong();

    EngineTimer(Ticker ticker, int clientId) {
        this.ticker = ticker;
        this.systemTicker = ticker == Ticker.systemTicker();
        this.thread = new ScheduledThreadPoolExecutor(1, LeaseholdThreads.forRole("timer", clientId));
        this.thread.setRemoveOnCancelPolicy(true);
        this.thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        if (!systemTicker) {
            thread.scheduleWithFixedDelay(this::runDue, PUMP_NANOS, PUMP_NANOS, TimeUnit.NANOSECONDS);
        }
    }

    /** The ticker's reading now. */
    long now() {
        return ticker.read();
    }

    /**
     * Runs {@code task} on the timer thread once {@code delayNanos} have passed on the ticker.
     * After shutdown nothing runs and a no-op handle is returned.
     */
    Timeout schedule(Runnable task, long delayNanos) {
        long delay = Math.max(0, delayNanos);
        return systemTicker ? scheduleOnThread(task, delay) : scheduleAt(task, saturatedAdd(now(), delay));
    }

    /**
     * Runs {@code task} on the timer thread once the ticker reads {@code atNanos} or later (at once
     * if it already does). Prefer this to {@link #schedule} for a deadline computed from an earlier
     * reading: a delay is added to the ticker's reading at the time of scheduling, so a clock that
     * moved in between would push the task past its deadline (and, on a hand-moved clock that then
     * stands still, forever). After shutdown nothing runs and a no-op handle is returned.
     */
    Timeout scheduleAt(Runnable task, long atNanos) {
        if (systemTicker) {
            return scheduleOnThread(task, Math.max(0, atNanos - now()));
        }
        if (thread.isShutdown()) {
            return NONE;
        }
        TickerTask entry = new TickerTask(atNanos, sequence.incrementAndGet(), task);
        synchronized (due) {
            due.add(entry);
        }
        return entry;
    }

    private Timeout scheduleOnThread(Runnable task, long delayNanos) {
        try {
            ScheduledFuture<?> future = thread.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            return () -> future.cancel(false);
        } catch (RejectedExecutionException shutDown) {
            return NONE;
        }
    }

    /** Tasks scheduled and not run or cancelled yet (for {@link io.leasehold.lock.LockClientDiagnostics}). */
    int taskCount() {
        if (systemTicker) {
            return thread.getQueue().size(); // cancelled tasks leave the queue at once (remove-on-cancel)
        }
        synchronized (due) {
            return due.size();
        }
    }

    /** Whether {@link #shutdown} was called: scheduled tasks no longer run. */
    boolean isShutDown() {
        return thread.isShutdown();
    }

    /** Stops the thread, dropping tasks not yet run; waits at most {@code nanos} for a running task. */
    void shutdown(long nanos) throws InterruptedException {
        thread.shutdownNow();
        synchronized (due) {
            due.clear();
        }
        thread.awaitTermination(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }

    private void runDue() {
        long now = now();
        while (true) {
            TickerTask next;
            synchronized (due) {
                next = due.peek();
                if (next == null || next.dueAt - now > 0) {
                    return;
                }
                due.poll();
            }
            if (!next.cancelled) {
                try {
                    next.task.run();
                } catch (RuntimeException e) {
                    // A failing task must not stop the pump; engine tasks handle their own failures.
                }
            }
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    /** A task waiting for a custom ticker to reach its deadline. */
    private final class TickerTask implements Comparable<TickerTask>, Timeout {
        final long dueAt;
        final long order;
        final Runnable task;
        volatile boolean cancelled;

        TickerTask(long dueAt, long order, Runnable task) {
            this.dueAt = dueAt;
            this.order = order;
            this.task = task;
        }

        @Override
        public void cancel() {
            cancelled = true;
            synchronized (due) {
                due.remove(this);
            }
        }

        @Override
        public int compareTo(TickerTask other) {
            int byTime = Long.compare(dueAt - other.dueAt, 0);
            return byTime != 0 ? byTime : Long.compare(order, other.order);
        }
    }
}
