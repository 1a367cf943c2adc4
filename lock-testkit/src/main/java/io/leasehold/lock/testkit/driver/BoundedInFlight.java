package io.leasehold.lock.testkit.driver;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Runs many asynchronous operations with at most a fixed number in flight, so that a load test
 * keeps the client busy without queueing everything at once (which would measure the queue, and
 * hold every future in memory).
 */
final class BoundedInFlight {

    private BoundedInFlight() {}

    /**
     * Starts {@code operation(i)} for every i below {@code count}, at most {@code inFlight} at a time,
     * and waits until all completed; fails with the first failure, or after {@code timeoutSeconds}.
     */
    static void run(int count, int inFlight, long timeoutSeconds, IntFunction<CompletableFuture<?>> operation)
            throws Exception {
        Semaphore permits = new Semaphore(inFlight);
        CompletableFuture<Void> firstFailure = new CompletableFuture<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        for (int i = 0; i < count && !firstFailure.isDone(); i++) {
            if (!permits.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw new AssertionError(
                        "timed out after " + timeoutSeconds + " s with " + i + " of " + count + " started");
            }
            CompletableFuture<?> started;
            try {
                started = operation.apply(i);
            } catch (RuntimeException e) {
                started = CompletableFuture.failedFuture(e);
            }
            started.whenComplete((ignored, error) -> {
                if (error != null) {
                    firstFailure.completeExceptionally(error);
                }
                permits.release();
            });
        }
        if (!permits.tryAcquire(inFlight, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                && !firstFailure.isDone()) {
            throw new AssertionError("timed out after " + timeoutSeconds + " s waiting for the last "
                    + (inFlight - permits.availablePermits()) + " of " + count + " operations");
        }
        if (firstFailure.isDone()) {
            firstFailure.join(); // throws the first failure
        }
    }
}
