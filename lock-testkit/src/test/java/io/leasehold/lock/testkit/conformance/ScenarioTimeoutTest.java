package io.leasehold.lock.testkit.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The per-scenario limit: on the test thread, interrupting it at the limit, failing the scenario by name. */
class ScenarioTimeoutTest {

    private static final String WHAT = "conformance scenario shouldTakeItsTime (G1) on fixture 'probe'";

    private final ByteArrayOutputStream dump = new ByteArrayOutputStream();
    private final ScenarioTimeout timeout = timeout(Duration.ofMillis(100));

    /** A limit of 200 ms, and interrupts every {@code reinterrupt} after it. */
    private ScenarioTimeout timeout(Duration reinterrupt) {
        return new ScenarioTimeout(
                Duration.ofMillis(200), reinterrupt, new PrintStream(dump, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void shouldInterruptAScenarioPastItsLimitAndFailItByName() {
        Thread testThread = Thread.currentThread();
        Thread[] ranOn = new Thread[1];
        long start = System.nanoTime();

        TimeoutException e = assertThrows(
                TimeoutException.class,
                () -> timeout(Duration.ofMinutes(1)).run(WHAT, () -> {
                    ranOn[0] = Thread.currentThread();
                    Thread.sleep(20_000);
                }));

        assertSame(testThread, ranOn[0], "the scenario runs on the test thread");
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 10_000, "interrupted at the limit");
        assertTrue(e.getMessage().startsWith(WHAT + " timed out after 200 ms"), e.getMessage());
        assertTrue(e.getMessage().contains("(1 interrupt)"), e.getMessage());
        assertInstanceOf(InterruptedException.class, e.getCause(), "the scenario's own failure is the cause");
        assertTrue(
                Arrays.stream(e.getStackTrace())
                        .anyMatch(frame -> frame.getMethodName().equals("sleep")),
                "the stack trace is the test thread's when the limit passed: " + Arrays.toString(e.getStackTrace()));
        assertFalse(testThread.isInterrupted(), "the next scenario does not start interrupted");
        String printed = dump.toString(StandardCharsets.UTF_8);
        assertTrue(
                printed.contains(WHAT + " has run for 200 ms, its limit: interrupting the test thread '"
                        + testThread.getName() + "'. Every thread's stack:"),
                printed);
        assertTrue(printed.contains("\"conformance-watchdog\" RUNNABLE daemon"), printed);
    }

    @Test
    void shouldInterruptAgainUntilTheScenarioReturns() {
        int[] interruptsSeen = new int[1];

        TimeoutException e = assertThrows(
                TimeoutException.class,
                () -> timeout.run(WHAT, () -> {
                    while (interruptsSeen[0] < 3) {
                        try {
                            Thread.sleep(20_000);
                        } catch (InterruptedException swallowed) {
                            interruptsSeen[0]++;
                        }
                    }
                }));

        assertTrue(e.getMessage().matches("(?s).*\\(\\d+ interrupts\\) and the scenario returned.*"), e.getMessage());
        assertTrue(interruptsSeen[0] >= 3);
        assertNull(e.getCause());
        assertTrue(dump.toString(StandardCharsets.UTF_8).contains(WHAT + " still runs"), dump.toString());
    }

    @Test
    void shouldFailAScenarioThatReturnsNormallyButPastItsLimit() {
        TimeoutException e = assertThrows(
                TimeoutException.class,
                () -> timeout.run(WHAT, () -> {
                    long end = System.nanoTime() + Duration.ofMillis(400).toNanos();
                    while (System.nanoTime() < end) {
                        Thread.onSpinWait(); // deaf to interrupts
                    }
                }));

        assertTrue(e.getMessage().contains("and the scenario returned"), e.getMessage());
        assertFalse(Thread.currentThread().isInterrupted());
    }

    @Test
    void shouldLeaveAScenarioWithinItsLimitAlone() throws Throwable {
        timeout.run(WHAT, () -> Thread.sleep(20));

        // The watchdog has ended by the time run() returns: no interrupt or dump can come later
        assertTrue(
                Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().equals("conformance-watchdog")),
                "a watchdog outlives its scenario");
        assertFalse(Thread.currentThread().isInterrupted());
        assertEquals("", dump.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRethrowTheFailureOfAScenarioWithinItsLimit() {
        AssertionError failure = new AssertionError("the scenario's own");

        assertSame(
                failure,
                assertThrows(
                        AssertionError.class,
                        () -> timeout.run(WHAT, () -> {
                            throw failure;
                        })));
    }
}
