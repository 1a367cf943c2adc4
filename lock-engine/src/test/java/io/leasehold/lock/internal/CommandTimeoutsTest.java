package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Command timeouts kept in one FIFO with one sweep: each call fails at its own deadline, answered calls never. */
class CommandTimeoutsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private final ManualClock clock = new ManualClock();
    private final EngineTimer timer = new EngineTimer(clock, 0);
    private final CommandTimeouts timeouts = new CommandTimeouts(timer, TIMEOUT.toNanos());

    @AfterEach
    void stop() throws InterruptedException {
        timer.shutdown(1_000_000_000L);
    }

    @Test
    void shouldFailACallWithNoReplyAtItsDeadlineAndNotBefore() throws Exception {
        CompletableFuture<Object> call = watched();
        clock.advance(TIMEOUT.minusMillis(1));
        settle();
        assertFalse(call.isDone(), "a call 1 ms before its deadline");
        clock.advance(Duration.ofMillis(1));
        Eventually.until("the call fails at its deadline", call::isDone);
        assertTimedOut(call);
    }

    @Test
    void shouldFailOnlyTheOverdueCallsInTheOrderTheyWereSent() throws Exception {
        CompletableFuture<Object> first = watched();
        clock.advance(Duration.ofSeconds(1));
        CompletableFuture<Object> second = watched();
        clock.advance(Duration.ofSeconds(4));
        Eventually.until("the first call fails", first::isDone);
        settle();
        assertFalse(second.isDone(), "the call sent a second later, at the first one's deadline");
        clock.advance(Duration.ofSeconds(1));
        Eventually.until("the second call fails", second::isDone);
        assertTimedOut(first);
        assertTimedOut(second);
    }

    @Test
    void shouldLeaveAnsweredCallsAloneAndDropThemFromTheQueue() throws Exception {
        List<CompletableFuture<Object>> calls = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            calls.add(watched());
        }
        calls.forEach(call -> call.complete("answered"));
        clock.advance(Duration.ofNanos(CommandTimeouts.PRUNE_NANOS));
        Eventually.until(() -> "answered calls are dropped; waiting: " + timeouts.size(), () -> timeouts.size() == 0);
        clock.advance(TIMEOUT.multipliedBy(2));
        settle();
        for (CompletableFuture<Object> call : calls) {
            assertEquals("answered", call.get(), "an answered call is never failed");
        }
    }

    @Test
    void shouldTimeEveryCallOutWhileCallsAreAddedDuringSweeps() throws Exception {
        // Given callers adding calls on several threads while the sweep runs and re-arms itself
        int threads = 4;
        int perThread = 500;
        List<CompletableFuture<Object>> unanswered = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger answeredFailed = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread caller = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    CompletableFuture<Object> call = watched();
                    if ((i + id) % 2 == 0) {
                        call.complete("answered");
                        if (call.isCompletedExceptionally()) {
                            answeredFailed.incrementAndGet();
                        }
                    } else {
                        unanswered.add(call);
                    }
                    if (i % 50 == 0) {
                        clock.advance(Duration.ofMillis(60)); // sweeps run meanwhile
                    }
                }
                done.countDown();
            });
            caller.start();
        }
        assertTrue(done.await(30, java.util.concurrent.TimeUnit.SECONDS), "callers finished");
        // When every deadline has passed
        clock.advance(TIMEOUT);
        // Then every unanswered call has failed, and no answered one
        Eventually.until("every unanswered call fails", () -> {
            synchronized (unanswered) {
                return unanswered.stream().allMatch(CompletableFuture::isDone);
            }
        });
        for (CompletableFuture<Object> call : unanswered) {
            assertTimedOut(call);
        }
        assertEquals(0, answeredFailed.get(), "answered calls that failed");
        Eventually.until("nothing is left waiting", () -> timeouts.size() == 0);
    }

    @Test
    void shouldTimeACallOutWhenTheClockMovesWhileTheSweepRearmsItself() throws Exception {
        // Given a clock that the timer thread reads three times in a row from the next pump on (the
        // pump, the sweep's own reading, the re-arming), and that moves past the call's deadline
        // between the sweep's reading and the re-arming, then stands still
        TimerReadJump ticker = new TimerReadJump();
        EngineTimer jumpingTimer = new EngineTimer(ticker, 0);
        try {
            CommandTimeouts jumping = new CommandTimeouts(jumpingTimer, TIMEOUT.toNanos());
            CompletableFuture<Object> call = new CompletableFuture<>();
            jumping.watch(call, ticker.read(), () -> new TimeoutException("no reply within " + TIMEOUT));
            // When the sweep runs 10 ms before the deadline and the clock then jumps 20 ms, its last move
            ticker.setThenJumpOnThirdTimerRead(
                    TIMEOUT.minusMillis(10).toNanos(), Duration.ofMillis(20).toNanos());
            // Then the call still fails: the sweep was set for the deadline, not for "10 ms after it re-armed"
            Eventually.until("the call fails although the clock stood still after its deadline", call::isDone);
            assertTimedOut(call);
        } finally {
            jumpingTimer.shutdown(1_000_000_000L);
        }
    }

    /**
     * A ticker set by the test; on request it moves once, by a jump, at the third reading the
     * engine's timer thread makes after the request (the pump that finds the sweep due, the sweep
     * reading "now", and the reading the sweep's re-arming makes), and stands still after that.
     */
    private static final class TimerReadJump implements io.leasehold.lock.Ticker {
        private long now;
        private long pendingJump;
        private int readsBeforeJump = -1;

        @Override
        public synchronized long read() {
            if (readsBeforeJump >= 0 && Thread.currentThread().getName().startsWith("leasehold-timer")) {
                if (readsBeforeJump == 0) {
                    now += pendingJump;
                }
                readsBeforeJump--;
            }
            return now;
        }

        synchronized void setThenJumpOnThirdTimerRead(long value, long jump) {
            now = value;
            pendingJump = jump;
            readsBeforeJump = 2;
        }
    }

    private CompletableFuture<Object> watched() {
        CompletableFuture<Object> call = new CompletableFuture<>();
        timeouts.watch(call, clock.read(), () -> new TimeoutException("no reply within " + TIMEOUT));
        return call;
    }

    /** Lets the timer thread run what is due (it checks the hand-moved clock every millisecond). */
    private void settle() throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        timer.schedule(ran::countDown, 0);
        assertTrue(ran.await(10, java.util.concurrent.TimeUnit.SECONDS), "the timer ran what was due");
    }

    private static void assertTimedOut(CompletableFuture<Object> call) {
        ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, call::get);
        assertTrue(failure.getCause() instanceof TimeoutException, "cause: " + failure.getCause());
    }
}
