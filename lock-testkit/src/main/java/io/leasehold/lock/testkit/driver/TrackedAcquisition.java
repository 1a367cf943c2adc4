package io.leasehold.lock.testkit.driver;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.Lease;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One asynchronous acquisition started by a chaos test, cancelled at a chosen moment if asked, whose
 * lease (if it gets one) is held by the test's {@link Hold} on a worker thread: its
 * {@linkplain #outcome outcome} is the lease's fencing token once held and released, or the failure.
 */
public final class TrackedAcquisition {

    /** What a holder does with its lease (enter, work, leave, release); a throw is recorded as a violation. */
    @FunctionalInterface
    public interface Hold {
        /** Holds {@code lease}: enters the section, works, leaves, releases. */
        void hold(Lease lease) throws Exception;
    }

    private final Duration wait;
    private final long cancelAfterMs;
    private final CompletableFuture<Lease> future;
    private final CompletableFuture<Object> done = new CompletableFuture<>();

    private TrackedAcquisition(Duration wait, long cancelAfterMs, CompletableFuture<Lease> future) {
        this.wait = wait;
        this.cancelAfterMs = cancelAfterMs;
        this.future = future;
    }

    /**
     * Starts {@code lock.acquireAsync(wait)}; cancels it at once if {@code cancelAfterMs} is 0 (before
     * the send), or after that many milliseconds if it is positive; a lease it gets is held by
     * {@code hold} on {@code workers}, and a throw of {@code hold} is recorded in {@code section}.
     */
    public static TrackedAcquisition start(
            DistributedLock lock,
            Duration wait,
            long cancelAfterMs,
            ScheduledExecutorService delays,
            Executor workers,
            ExclusiveSection section,
            Hold hold) {
        CompletableFuture<Lease> future = lock.acquireAsync(wait);
        TrackedAcquisition acquisition = new TrackedAcquisition(wait, cancelAfterMs, future);
        if (cancelAfterMs == 0) {
            future.cancel(false);
        } else if (cancelAfterMs > 0) {
            delays.schedule(() -> future.cancel(false), cancelAfterMs, TimeUnit.MILLISECONDS);
        }
        future.whenCompleteAsync(
                (lease, error) -> {
                    if (lease == null) {
                        acquisition.done.complete(error instanceof CompletionException ? error.getCause() : error);
                        return;
                    }
                    try {
                        hold.hold(lease);
                    } catch (Throwable t) {
                        section.violation("release failed: " + t);
                    } finally {
                        acquisition.done.complete(lease.fencingToken());
                    }
                },
                workers);
        return acquisition;
    }

    /** The wait the acquisition was started with. */
    public Duration waitTime() {
        return wait;
    }

    /** Whether the test cancels it ({@code cancelAfterMs} 0 or more). */
    public boolean cancelled() {
        return cancelAfterMs >= 0;
    }

    /** Whether the test waits long (a minute or more) and never cancels: such an acquisition must get the lock. */
    public boolean mustGetTheLock() {
        return wait.toSeconds() >= 60 && !cancelled();
    }

    /** The held lease's fencing token (a {@code Long}), or the failure; fails if it has not ended within {@code within}. */
    public Object outcome(Duration within) throws InterruptedException, ExecutionException {
        try {
            return done.get(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("an acquisition (wait " + wait + ", cancel after " + cancelAfterMs
                    + " ms) did not end within " + within + "; its future: " + future);
        }
    }
}
