package io.leasehold.lock.internal;

import io.leasehold.lock.spi.support.Durations;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Judges the leases of one renew call overdue, each at its own point: a lease whose renewal has no
 * reply halfway to its loss check ({@link DefaultLease#renewalReplyDeadline}) goes {@code UNCERTAIN}
 * then, with time left to act, whatever the command timeout; the call goes on waiting, and a reply
 * before the loss check makes it {@code HELD} again. Each lease is judged at its own point, not the
 * batch's earliest: a long lease riding in a short lease's batch is not made uncertain by the short
 * one's deadline. One timer task at a time, at the earliest point not yet passed; {@link #cancel} (the
 * reply came) stops it.
 *
 * <p>This class is threadsafe: its state is guarded by {@code this}; it calls the leases outside it.
 */
final class OverdueRenewals {

    private final Engine engine;
    private final CompletableFuture<Object> call;
    private final long sentNanos;
    private final List<DefaultLease> leases;
    private final long[] deadlines;
    private final boolean[] judged;
    private EngineTimer.@Nullable Timeout next; // guarded by this
    private boolean cancelled; // guarded by this

    private OverdueRenewals(
            Engine engine,
            CompletableFuture<Object> call,
            long sentNanos,
            List<DefaultLease> leases,
            long[] deadlines) {
        this.engine = engine;
        this.call = call;
        this.sentNanos = sentNanos;
        this.leases = leases;
        this.deadlines = deadlines;
        this.judged = new boolean[deadlines.length];
    }

    /** Starts watching {@code call}, the renewal of {@code leases} sent at {@code sentNanos}, each overdue at its deadline. */
    static OverdueRenewals watch(
            Engine engine,
            CompletableFuture<Object> call,
            long sentNanos,
            List<DefaultLease> leases,
            long[] deadlines) {
        OverdueRenewals watch = new OverdueRenewals(engine, call, sentNanos, leases, deadlines);
        watch.armNext();
        return watch;
    }

    /** The reply (or the call's failure) came: nothing more to judge. */
    synchronized void cancel() {
        cancelled = true;
        if (next != null) {
            next.cancel();
            next = null;
        }
    }

    private synchronized void armNext() {
        if (cancelled) {
            return;
        }
        long earliest = 0;
        boolean any = false;
        for (int i = 0; i < deadlines.length; i++) {
            if (!judged[i] && (!any || deadlines[i] - earliest < 0)) {
                earliest = deadlines[i];
                any = true;
            }
        }
        next = any ? engine.timer.scheduleAt(this::judge, earliest) : null;
    }

    private void judge() {
        if (call.isDone()) {
            return;
        }
        long now = engine.now();
        Throwable late = new TimeoutException("no reply to 'renew' within "
                + Durations.human(Duration.ofNanos(now - sentNanos)) + ", halfway to the lease's loss check");
        for (int i = 0; i < deadlines.length; i++) {
            boolean due;
            synchronized (this) {
                due = !cancelled && !judged[i] && now - deadlines[i] >= 0;
                if (due) {
                    judged[i] = true;
                }
            }
            if (due) {
                leases.get(i).renewalOverdue(late);
            }
        }
        armNext();
    }
}
