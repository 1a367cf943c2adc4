package io.leasehold.lock.testkit.driver;

import java.time.Duration;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/** Waits for a condition on Redis's side (a subscription count, a key) with a generous deadline. */
public final class Eventually {

    /** The default deadline: generous, for a noisy two-core machine. */
    public static final Duration DEFAULT = Duration.ofSeconds(20);

    private Eventually() {}

    /** Polls {@code condition} every 20 ms until it holds (an exception counts as "not yet"); fails after {@link #DEFAULT}. */
    public static void until(String what, BooleanSupplier condition) {
        until(() -> what, condition);
    }

    /**
     * {@link #until(String, BooleanSupplier)}, with {@code what} read only if it fails, so that it can
     * describe the state at the deadline (e.g. the threads still alive then).
     */
    public static void until(Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + DEFAULT.toNanos();
        while (!test(condition)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + DEFAULT + " waiting until " + what.get());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what.get(), e);
            }
        }
    }

    /**
     * The live threads whose names start with {@code prefix}: taken before a test builds its client,
     * the ones that are not that client's (other tests' clients of this JVM, still ending, and the
     * threads of Redis clients a test opened, e.g. Jedis's {@code <master>-SentinelListener-[...]}).
     */
    public static Set<Thread> liveThreadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.isAlive() && thread.getName().startsWith(prefix))
                .collect(Collectors.toSet());
    }

    /** The stacks of the live threads whose names start with {@code prefix}: context for a failure message. */
    public static String threadsNamed(String prefix) {
        return threadsNamed(prefix, Set.of());
    }

    /** {@link #threadsNamed(String)}, leaving out {@code known} (see {@link #liveThreadsNamed}). */
    public static String threadsNamed(String prefix, Set<Thread> known) {
        StringBuilder dump = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.isAlive() && thread.getName().startsWith(prefix) && !known.contains(thread)) {
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
