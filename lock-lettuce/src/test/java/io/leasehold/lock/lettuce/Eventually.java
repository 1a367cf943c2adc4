package io.leasehold.lock.lettuce;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition on Redis's side (a subscription count, a connection count) with a generous deadline. */
final class Eventually {

    static final Duration DEFAULT = Duration.ofSeconds(20);

    private Eventually() {
    }

    static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT, condition, () -> "");
    }

    static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> detail) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!test(condition)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting until " + what + " " + detail.get());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what, e);
            }
        }
    }

    private static boolean test(BooleanSupplier condition) {
        try {
            return condition.getAsBoolean();
        } catch (RuntimeException e) {
            return false;
        }
    }
}
