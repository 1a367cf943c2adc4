package io.leasehold.lock.quorum;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A quorum's timers: a tally's grace and patience, an acquisition's give-up at its lease. Every
 * acquisition schedules some, and most are cancelled within milliseconds (the tally decided first):
 * a cancelled timer leaves the queue at once, so that a pending one does not keep its tally and
 * attempt reachable for the rest of its delay (the JDK's {@code CompletableFuture.delayedExecutor}
 * cannot cancel: at 10,000 acquisitions a second with a 30 s lease, 300,000 live give-ups).
 *
 * <p>Each timer either fires or is cancelled, once: whichever comes first claims it. {@link #close()}
 * fires every timer still pending (whatever waits on one is decided rather than left open, a tally
 * whose members never answer included), and a timer set after it fires at once.
 *
 * <p><b>Threads.</b> One daemon thread, started by the first timer and ended after 10 s without one;
 * it only hands a due task to the common pool (as the JDK's delayed executor does), so a slow task
 * never delays another timer. This class is threadsafe.
 */
final class QuorumTimer implements AutoCloseable {

    /** A timer set by {@link #after}: {@link #cancel()} keeps it from firing, unless it fired already. */
    final class Timeout {
        private final Runnable task;
        private final AtomicBoolean claimed = new AtomicBoolean();
        private volatile ScheduledFuture<?> scheduled;

        private Timeout(Runnable task) {
            this.task = task;
        }

        /** Cancels the timer; false if it fired (or was cancelled) already. */
        boolean cancel() {
            if (!claimed.compareAndSet(false, true)) {
                return false;
            }
            pending.remove(this);
            ScheduledFuture<?> s = scheduled;
            if (s != null) {
                s.cancel(false); // leaves the scheduler's queue at once (remove-on-cancel)
            }
            return true;
        }

        private void fire() {
            if (claimed.compareAndSet(false, true)) {
                pending.remove(this);
                runner.execute(task);
            }
        }
    }

    private final Executor runner;
    private final ScheduledThreadPoolExecutor scheduler;
    private final Set<Timeout> pending = ConcurrentHashMap.newKeySet();

    QuorumTimer() {
        this(ForkJoinPool.commonPool());
    }

    QuorumTimer(Executor runner) {
        this.runner = runner;
        this.scheduler = new ScheduledThreadPoolExecutor(1, thread -> {
            Thread t = new Thread(thread, "leasehold-quorum-timer");
            t.setDaemon(true);
            return t;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setKeepAliveTime(10, TimeUnit.SECONDS);
        scheduler.allowCoreThreadTimeOut(true);
    }

    /** Runs {@code task} after {@code delay}, unless the returned timer is cancelled first. */
    Timeout after(Duration delay, Runnable task) {
        Timeout timeout = new Timeout(task);
        pending.add(timeout);
        try {
            timeout.scheduled = scheduler.schedule(timeout::fire, delay.toNanos(), TimeUnit.NANOSECONDS);
            if (timeout.claimed.get()) {
                timeout.scheduled.cancel(false); // cancelled before it was scheduled: out of the queue too
            }
        } catch (RejectedExecutionException closed) {
            timeout.fire();
        }
        if (scheduler.isShutdown()) {
            timeout.fire(); // close() ran meanwhile, and may have missed it
        }
        return timeout;
    }

    /** How many timers are set and neither fired nor cancelled. */
    int pending() {
        return pending.size();
    }

    /** Ends the thread and fires every timer still pending; later timers fire at once. */
    @Override
    public void close() {
        scheduler.shutdownNow();
        pending.forEach(Timeout::fire);
    }
}
