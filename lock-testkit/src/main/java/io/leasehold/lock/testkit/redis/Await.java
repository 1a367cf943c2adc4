package io.leasehold.lock.testkit.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition until it holds or a deadline passes (for fixture setup, never for test assertions on timing). */
final class Await {

    private Await() {}

    /**
     * Polls {@code condition} every 50 ms until it is true; otherwise throws a
     * {@link RedisFixtureException} with {@code what} and the {@code detail} at the deadline.
     */
    static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> detail) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!safely(condition)) {
            if (System.nanoTime() - deadline > 0) {
                throw new RedisFixtureException(
                        "timed out after " + timeout + " waiting for " + what + "; " + detail.get());
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RedisFixtureException("interrupted while waiting for " + what, e);
            }
        }
    }

    private static boolean safely(BooleanSupplier condition) {
        try {
            return condition.getAsBoolean();
        } catch (RedisFixtureException | RedisErrorReply e) {
            return false;
        }
    }
}
