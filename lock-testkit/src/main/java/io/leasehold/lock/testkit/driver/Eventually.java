package io.leasehold.lock.testkit.driver;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition on Redis's side (a subscription count, a key) with a generous deadline. */
public final class Eventually {

    /** The default deadline: generous, for a noisy two-core machine. */
    public static final Duration DEFAULT = Duration.ofSeconds(20);

    private Eventually() {}

    /** Polls {@code condition} every 20 ms until it holds (an exception counts as "not yet"); fails after {@link #DEFAULT}. */
    public static void until(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + DEFAULT.toNanos();
        while (!test(condition)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + DEFAULT + " waiting until " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what, e);
            }
        }
    }

    /** The stacks of the live threads whose names start with {@code prefix}: context for a failure message. */
    public static String threadsNamed(String prefix) {
        StringBuilder dump = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().startsWith(prefix)) {
                dump.append("\n").append(thread.getName()).append(" ").append(thread.getState());
                for (int i = 0; i < Math.min(stack.length, 12); i++) {
                    dump.append("\n    at ").append(stack[i]);
                }
            }
        });
        return dump.toString();
    }

    private static boolean test(BooleanSupplier condition) {
        try {
            return condition.getAsBoolean();
        } catch (RuntimeException e) {
            return false;
        }
    }
}
