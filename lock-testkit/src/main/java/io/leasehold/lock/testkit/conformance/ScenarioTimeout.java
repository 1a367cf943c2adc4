package io.leasehold.lock.testkit.conformance;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The time limit of one scenario of {@link LockConformanceSuite}, which JUnit's {@code @Timeout} cannot
 * give a dynamic test.
 *
 * <p>The scenario runs on the calling thread, the test thread, as a {@code @Test} method did: scenarios
 * rely on it (hold counts by thread, a {@code callLocked} body that a loss interrupts, thread names in
 * what they check). A watchdog thread waits beside it; once the limit has passed it prints every
 * thread's stack to {@code dumpTo}, interrupts the test thread, and interrupts it again every
 * {@code reinterrupt} for as long as the scenario has not returned. When it returns, or throws, the
 * scenario fails with a {@link TimeoutException} that names it, carries the test thread's stack at the
 * moment the limit passed, and has the scenario's own failure, if any, as its cause; the interrupt is
 * cleared, so that the next scenario does not start interrupted. Nothing is ever left running: a
 * preemptive timeout (JUnit's {@code assertTimeoutPreemptively}) would run the scenario on another
 * thread and abandon it at the limit, still using the shared fixture, and clearing its faults, while
 * the next scenario runs.
 *
 * <p>This class is threadsafe.
 */
final class ScenarioTimeout {

    /** What the watchdog runs under the limit. */
    @FunctionalInterface
    interface Body {
        void run() throws Throwable;
    }

    /** How long the watchdog waits between two interrupts of a scenario that ran over and has not returned. */
    static final Duration REINTERRUPT = Duration.ofSeconds(30);

    private final Duration limit;
    private final Duration reinterrupt;
    private final PrintStream dumpTo;

    ScenarioTimeout(Duration limit, Duration reinterrupt, PrintStream dumpTo) {
        if (limit.isNegative() || limit.isZero() || reinterrupt.isNegative() || reinterrupt.isZero()) {
            throw new IllegalArgumentException("limit and reinterrupt must be positive: " + limit + ", " + reinterrupt);
        }
        this.limit = limit;
        this.reinterrupt = reinterrupt;
        this.dumpTo = dumpTo;
    }

    /** The limit. */
    Duration limit() {
        return limit;
    }

    /**
     * Runs {@code body} on the calling thread under the limit; {@code what} names it in the failure and
     * the thread dump (e.g. the scenario, its guarantees and the fixture).
     */
    void run(String what, Body body) throws Throwable {
        Watch watch = new Watch(Thread.currentThread(), what);
        Thread watchdog = new Thread(watch, "conformance-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        Throwable failure = null;
        try {
            body.run();
        } catch (Throwable t) {
            failure = t;
        }
        Overrun overrun = watch.finish();
        awaitEnd(watchdog); // so that no interrupt of it can reach the test thread after this returns
        if (overrun != null) {
            Thread.interrupted(); // the watchdog's, not the scenario's
            TimeoutException timeout = new TimeoutException(what + " timed out after " + describe(limit)
                    + ": the test thread was interrupted then (" + overrun.interrupts
                    + (overrun.interrupts == 1 ? " interrupt" : " interrupts")
                    + ") and the scenario " + (failure == null ? "returned" : "ended with the cause below") + " "
                    + TimeUnit.NANOSECONDS.toMillis(overrun.overdueNanos)
                    + " ms later; the stack trace below is the test thread's when the limit passed, and every"
                    + " thread's stack was printed to stderr then");
            timeout.setStackTrace(overrun.stackAtLimit);
            if (failure != null) {
                timeout.initCause(failure);
            }
            throw timeout;
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Waits for the finished watchdog to end; an interrupt met meanwhile is kept for the caller. */
    private static void awaitEnd(Thread watchdog) {
        boolean interrupted = false;
        while (true) {
            try {
                watchdog.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static String describe(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }

    /** What happened once the limit had passed: the test thread's stack then, how many interrupts, how late. */
    private record Overrun(StackTraceElement[] stackAtLimit, int interrupts, long overdueNanos) {}

    /** The watchdog: waits for the limit, then interrupts the test thread until {@link #finish()}. */
    private final class Watch implements Runnable {

        private final Thread testThread;
        private final String what;
        private final long startNanos = System.nanoTime();
        // Guarded by this: an interrupt is sent only while the scenario runs, never after finish().
        private boolean done;
        private StackTraceElement[] stackAtLimit;
        private long limitPassedNanos;
        private int interrupts;

        Watch(Thread testThread, String what) {
            this.testThread = testThread;
            this.what = what;
        }

        @Override
        public synchronized void run() {
            long next = startNanos + limit.toNanos();
            try {
                while (!done) {
                    long left = next - System.nanoTime();
                    if (left > 0) {
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                        continue;
                    }
                    if (stackAtLimit == null) {
                        stackAtLimit = testThread.getStackTrace();
                        limitPassedNanos = System.nanoTime();
                        dumpTo.println(threadDump(what + " has run for " + describe(limit)
                                + ", its limit: interrupting the test thread '" + testThread.getName()
                                + "'. Every thread's stack:"));
                    } else {
                        dumpTo.println(what + " still runs "
                                + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - limitPassedNanos)
                                + " s after its limit: interrupting the test thread '" + testThread.getName()
                                + "' again. Its stack:" + stack(testThread.getStackTrace()));
                    }
                    testThread.interrupt();
                    interrupts++;
                    next = System.nanoTime() + reinterrupt.toNanos();
                }
            } catch (InterruptedException e) {
                // Nobody interrupts the watchdog; if someone does, it stops watching.
            }
        }

        /** Ends the watch: the overrun, or null when the scenario ended within its limit. */
        synchronized Overrun finish() {
            done = true;
            notifyAll();
            return stackAtLimit == null
                    ? null
                    : new Overrun(stackAtLimit, interrupts, System.nanoTime() - limitPassedNanos);
        }
    }

    private static String threadDump(String heading) {
        StringBuilder dump = new StringBuilder(heading);
        for (Map.Entry<Thread, StackTraceElement[]> entry :
                Thread.getAllStackTraces().entrySet()) {
            Thread thread = entry.getKey();
            dump.append("\n\"").append(thread.getName()).append("\" ").append(thread.getState());
            if (thread.isDaemon()) {
                dump.append(" daemon");
            }
            dump.append(stack(entry.getValue()));
        }
        return dump.toString();
    }

    private static String stack(StackTraceElement[] stack) {
        StringBuilder text = new StringBuilder();
        for (StackTraceElement element : stack) {
            text.append("\n    at ").append(element);
        }
        return text.toString();
    }
}
