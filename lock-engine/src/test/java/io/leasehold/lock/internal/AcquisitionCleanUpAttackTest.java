package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.Ticker;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * An ended acquisition's clean-up follows its attempt still on its way, and close() waits for it
 * within its timeout: after a cancel, a timeout or close(), no lock of the acquisition's owner is left
 * in Redis and no lease is handed out. Each test holds acquire commands "on the wire" (they reach the
 * store only when the test lands them, through a node of their own that stays open, as Redis runs
 * what was written whatever the client does meanwhile).
 */
class AcquisitionCleanUpAttackTest {

    private static final String NAME = "orders:42";
    private static final String KEY = LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, NAME);

    // ---- close() -------------------------------------------------------------------------------

    /**
     * close() sends a clean-up still waiting for its attempt ahead, at three quarters of its timeout,
     * and then uses the rest of it for the attempt: one that lands meanwhile is undone by the clean-up
     * sent again after it.
     */
    @Test
    void shouldUndoAnAttemptThatLandsAfterCloseSentItsCleanUpAhead() throws Exception {
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            AcquiresOnTheWire backend = new AcquiresOnTheWire(redis.newNode(), redis.newNode());
            backend.holdAcquires = true;
            LockClient client = LockClient.builder(backend)
                    .commandTimeout(Duration.ofSeconds(30))
                    .closeTimeout(Duration.ofSeconds(4))
                    .build();
            CompletableFuture<Lease> waiting = client.lock(NAME).acquireAsync(Duration.ofSeconds(30));
            Eventually.until("the attempt was sent", () -> backend.held.size() == 1);
            Thread closer = new Thread(client::close, "closer");
            closer.start();
            Eventually.until(
                    "close() sent the clean-up ahead of the attempt (or returned)",
                    () -> !closer.isAlive() || backend.releasesSent.get() >= 1);
            boolean returnedBeforeLanding = !closer.isAlive();

            backend.land(); // a second after the clean-up went ahead, within close()'s timeout

            closer.join(10_000);
            assertFalse(closer.isAlive(), "close() returned");
            assertTrue(waiting.isDone(), "the waiter's acquisition ended");
            assertFalse(
                    redis.exists(KEY),
                    "nothing left in Redis: " + redis.get(KEY) + " (close() returned before the attempt landed: "
                            + returnedBeforeLanding + ")");
        }
    }

    /**
     * close() racing a cancel: the cancelling thread is preempted inside the acquisition's end (here
     * while it leaves the wait queue, modelled by parking it at a ticker read there, as
     * PausingTicker does for the hand-out). close() does not end that acquisition (another thread
     * does), so it waits until the acquisition has ended and registered its clean-up, then for the
     * clean-up, which undoes the attempt when it lands.
     */
    @Test
    void shouldWaitForAnAcquisitionThatACancelIsEndingWhenCloseRacesIt() throws Exception {
        runCancelRacingClose(true);
    }

    /** The same moves without the preemption: close() waits for the cancelled acquisition's clean-up, which undoes the attempt. */
    @Test
    void shouldWaitForTheCleanUpOfAnAcquisitionCancelledBeforeClose() throws Exception {
        runCancelRacingClose(false);
    }

    private void runCancelRacingClose(boolean preempt) throws Exception {
        ManualClock clock = new ManualClock();
        ParkingTicker ticker = new ParkingTicker(clock);
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            AcquiresOnTheWire backend = new AcquiresOnTheWire(redis.newNode(), redis.newNode());
            LockClient client = LockClient.builder(backend)
                    .ticker(ticker)
                    .closeTimeout(Duration.ofSeconds(5))
                    .build();
            // A lease of this client holds the lock; A asked (contended) and queued; B queued behind A.
            Lease holder = client.lock(NAME).acquire(Duration.ZERO);
            CompletableFuture<Lease> a = client.lock(NAME).acquireAsync(Duration.ofSeconds(30));
            CompletableFuture<Lease> b = client.lock(NAME).acquireAsync(Duration.ofSeconds(30));
            assertEquals(2, backend.acquiresSent.get(), "the holder's and A's first attempt");
            // A resubscription wakes A, which asks again even under the local lease: held on the wire.
            backend.holdAcquires = true;
            redis.makeUnavailable();
            redis.makeAvailable();
            Eventually.until("A's second attempt is on its way", () -> backend.held.size() == 1);
            assertFalse(a.isDone() || b.isDone());

            if (preempt) {
                ticker.arm(
                        "canceller",
                        frames -> calls(frames, "WaitQueues", "leave")
                                && calls(frames, "DefaultLease", "validityLeftNanos"));
            }
            Thread canceller = new Thread(() -> a.cancel(false), "canceller");
            canceller.start();
            if (preempt) {
                assertTrue(ticker.awaitParked(10), "the canceller is inside finish(), leaving the wait queue");
            } else {
                canceller.join(10_000);
            }
            Thread closer = new Thread(client::close, "closer");
            closer.start();
            // close() waits for A's clean-up, which only the landing attempt (or the 3/4 force) settles
            Eventually.until(
                    "close() waits (or returned)", () -> !closer.isAlive() || (!redis.exists(KEY) && closeWaiting()));
            boolean returnedBeforeLanding = !closer.isAlive();
            assertFalse(redis.exists(KEY), "the holder's lock was released by close(): " + redis.get(KEY));
            ticker.resume();
            canceller.join(10_000);
            backend.land(); // A's attempt reaches Redis, the lock being free (the holder's close released it)
            closer.join(10_000);
            assertFalse(closer.isAlive(), "close() returned");
            assertTrue(a.isCancelled() && b.isDone());
            assertFalse(holder.isValid(), "the holder was ended by close()");
            assertFalse(
                    redis.exists(KEY),
                    "nothing left in Redis: " + redis.get(KEY) + " (close() returned before the attempt landed: "
                            + returnedBeforeLanding + ")");
        }
    }

    // ---- cancel, timeout, rounds ----------------------------------------------------------------

    /** Cancel with the attempt on the wire, no close: the clean-up follows the attempt; nothing left, no lease. */
    @Test
    void shouldUndoAnAttemptThatLandsAfterItsAcquisitionWasCancelled() throws Exception {
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            AcquiresOnTheWire backend = new AcquiresOnTheWire(redis.newNode(), redis.newNode());
            backend.holdAcquires = true;
            try (LockClient client = LockClient.builder(backend).build()) {
                CompletableFuture<Lease> waiting = client.lock(NAME).acquireAsync(Duration.ofSeconds(30));
                Eventually.until("the attempt was sent", () -> backend.held.size() == 1);
                waiting.cancel(false);
                assertEquals(0, backend.releasesSent.get(), "the clean-up waits for the attempt");
                backend.land();
                Eventually.until("the clean-up ran", () -> backend.releasesSent.get() >= 1 && !redis.exists(KEY));
                assertTrue(
                        pendingCleanUps(client).isEmpty()
                                && deferredCleanUps(client).isEmpty(),
                        "nothing retained: " + pendingCleanUps(client) + " " + deferredCleanUps(client));
            }
        }
    }

    /**
     * Cancel after the reply arrived but before it is acted on (the thread handling the reply is
     * parked in acquired(), before the lease is made): no lease is handed out, nothing is left.
     */
    @Test
    void shouldHandOutNothingWhenCancelledBetweenTheReplyAndItsHandling() throws Exception {
        ManualClock clock = new ManualClock();
        ParkingTicker ticker = new ParkingTicker(clock);
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            AcquiresOnTheWire backend = new AcquiresOnTheWire(redis.newNode(), redis.newNode());
            backend.holdAcquires = true;
            try (LockClient client = LockClient.builder(backend).ticker(ticker).build()) {
                CompletableFuture<Lease> waiting = client.lock(NAME).acquireAsync(Duration.ofSeconds(30));
                Eventually.until("the attempt was sent", () -> backend.held.size() == 1);
                ticker.arm("lander", frames -> frames.get(0).getMethodName().equals("onParsedReply"));
                Thread lander = new Thread(backend::land, "lander");
                lander.start();
                assertTrue(ticker.awaitParked(10), "the reply is being handled");
                assertTrue(redis.exists(KEY), "the attempt took the lock");
                waiting.cancel(false);
                assertEquals(0, backend.releasesSent.get(), "the clean-up waits for the reply's handling");
                ticker.resume();
                lander.join(10_000);
                Eventually.until("cleaned up", () -> !redis.exists(KEY));
                Eventually.until(
                        "nothing pending", () -> pendingCleanUps(client).isEmpty());
                assertTrue(waiting.isCancelled());
            }
        }
    }

    /**
     * The attempt's command timed out and it is still on its way; the acquisition ends with it (no
     * close): the clean-up goes at once (the reply may be lost for good, and the command may have run)
     * and finds nothing, and when the attempt lands, its late reply undoes it.
     */
    @Test
    void shouldUndoAnAttemptThatLandsAfterItsCommandTimeoutByItsLateReply() throws Exception {
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            AcquiresOnTheWire backend = new AcquiresOnTheWire(redis.newNode(), redis.newNode());
            backend.holdAcquires = true;
            try (LockClient client = LockClient.builder(backend)
                    .commandTimeout(Duration.ofMillis(200))
                    .build()) {
                // A wait shorter than the command timeout: the acquisition ends when its only attempt times out
                CompletableFuture<Lease> waiting = client.lock(NAME).acquireAsync(Duration.ofMillis(100));
                Eventually.until("the attempt timed out, and the acquisition with it", waiting::isDone);
                Eventually.until("the clean-up went", () -> backend.releasesSent.get() >= 1);
                backend.land();
                Eventually.until("the late reply was undone", () -> !redis.exists(KEY));
                Eventually.until(
                        "nothing pending",
                        () -> pendingCleanUps(client).isEmpty()
                                && deferredCleanUps(client).isEmpty());
            }
        }
    }

    /**
     * close() never hangs: attempts that never land, on a ticker that never moves (so no command
     * timeout ever fails them): close() sends the clean-ups ahead at 3/4 and returns at its timeout.
     */
    @Test
    void shouldCloseWithinItsTimeoutWhenAttemptsNeverLand() throws Exception {
        ManualClock clock = new ManualClock();
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            AcquiresOnTheWire backend = new AcquiresOnTheWire(redis.newNode(), redis.newNode());
            backend.holdAcquires = true;
            LockClient client = LockClient.builder(backend)
                    .ticker(clock)
                    .closeTimeout(Duration.ofSeconds(1))
                    .build();
            List<CompletableFuture<Lease>> waiting = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                waiting.add(client.lock(NAME + i).acquireAsync(Duration.ofSeconds(30)));
            }
            Eventually.until("the attempts were sent", () -> backend.held.size() == 5);
            waiting.get(0).cancel(false); // one ended before close too
            long started = System.nanoTime();
            client.close();
            long took = System.nanoTime() - started;
            // (its 1 s, and a second for the threads of a busy machine)
            assertTrue(took < TimeUnit.MILLISECONDS.toNanos(2_000), "close() took " + took / 1_000_000 + " ms");
            assertTrue(backend.releasesSent.get() >= 5, "the forced clean-ups went: " + backend.releasesSent.get());
            waiting.forEach(w -> assertTrue(w.isDone()));
        }
    }

    /**
     * Memory: many acquisitions cancelled with attempts in flight; once the attempts settle nothing
     * is retained by the engine (clean-up maps empty, no calls watched, no timers).
     */
    @Test
    void shouldRetainNothingOnceManyCancelledAttemptsHaveSettled() throws Exception {
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            AcquiresOnTheWire backend = new AcquiresOnTheWire(redis.newNode(), redis.newNode());
            backend.holdAcquires = true;
            try (LockClient client = LockClient.builder(backend).build()) {
                List<CompletableFuture<Lease>> waiting = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    waiting.add(client.lock(NAME + ":" + i).acquireAsync(Duration.ofSeconds(30)));
                }
                Eventually.until("the attempts were sent", () -> backend.held.size() == 200);
                waiting.forEach(w -> w.cancel(false));
                assertEquals(200, deferredCleanUps(client).size());
                backend.land();
                Eventually.until(
                        "all settled",
                        () -> pendingCleanUps(client).isEmpty()
                                && deferredCleanUps(client).isEmpty());
                for (int i = 0; i < 200; i++) {
                    String key = LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, NAME + ":" + i);
                    Eventually.until("nothing left at " + key, () -> !redis.exists(key));
                }
            }
        }
    }

    /**
     * Rounds: round 1's first attempt times out and stays on the wire; its retry grants too late (the
     * round is discarded, its owner released) and round 2's attempt goes out; the acquisition is
     * cancelled (its clean-up follows round 2's attempt). Round 1's old attempt then lands after
     * everything, taking the free lock with round 1's owner: its late reply undoes it.
     */
    @Test
    void shouldUndoAnOlderRoundsAttemptThatLandsLast() throws Exception {
        ManualClock clock = new ManualClock();
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock)) {
            AcquiresOnTheWire backend = new AcquiresOnTheWire(redis.newNode(), redis.newNode());
            backend.holdAcquires = true;
            try (LockClient client = LockClient.builder(backend)
                    .ticker(clock)
                    .commandTimeout(Duration.ofSeconds(1))
                    .build()) {
                io.leasehold.lock.LockOptions options = io.leasehold.lock.LockOptions.builder()
                        .leaseTime(Duration.ofMillis(200))
                        .build();
                CompletableFuture<Lease> waiting = client.lock(NAME, options).acquireAsync(Duration.ofSeconds(30));
                Eventually.until("attempt 1 sent", () -> backend.held.size() == 1);
                Runnable round1First = backend.held.remove(0);
                clock.advance(Duration.ofMillis(1_001)); // attempt 1 times out
                Eventually.until("attempt 1 timed out and its retry is due", () -> {
                    clock.advance(Duration.ofMillis(25));
                    return backend.held.size() == 1;
                });
                clock.advance(Duration.ofMillis(250)); // the retry's reply will come after the lease it grants
                backend.land(); // round 1 discarded, owner released; round 2's attempt goes out
                Eventually.until("round 2's attempt sent", () -> backend.held.size() == 1);
                assertFalse(redis.exists(KEY), "round 1's owner released");
                waiting.cancel(false);
                backend.land(); // round 2's attempt lands: undone
                assertFalse(redis.exists(KEY), "round 2 undone: " + redis.get(KEY));
                round1First.run(); // round 1's first attempt lands last
                assertFalse(redis.exists(KEY), "round 1's late attempt undone: " + redis.get(KEY));
                assertTrue(waiting.isCancelled());
                Eventually.until(
                        "nothing pending",
                        () -> pendingCleanUps(client).isEmpty()
                                && deferredCleanUps(client).isEmpty());
            }
        }
    }

    // ---- helpers ------------------------------------------------------------------------------

    private static boolean calls(List<StackWalker.StackFrame> frames, String simpleClass, String method) {
        for (StackWalker.StackFrame f : frames) {
            if (f.getClassName().endsWith("." + simpleClass)
                    && f.getMethodName().equals(method)) {
                return true;
            }
        }
        return false;
    }

    /** The client's clean-up releases not settled yet, with their lock names. */
    private static Map<CompletableFuture<?>, String> pendingCleanUps(LockClient client) {
        return ((DefaultLockClient) client).releases().pendingCleanUps();
    }

    /** Of those, the ones still waiting for what they follow. */
    private static Set<CompletableFuture<?>> deferredCleanUps(LockClient client) {
        return ((DefaultLockClient) client).releases().deferredCleanUps();
    }

    /** Whether close() is in its wait (the "closer" thread parked in a future's get). */
    private static boolean closeWaiting() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("closer")) {
                for (StackTraceElement e : t.getStackTrace()) {
                    if (e.getMethodName().equals("awaitQuietly")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** A ticker over a ManualClock that parks one named thread at the first read whose stack matches. */
    static final class ParkingTicker implements Ticker {
        private final ManualClock clock;
        private final AtomicReference<Predicate<List<StackWalker.StackFrame>>> armed = new AtomicReference<>();
        private volatile String thread = "";
        private final CountDownLatch parked = new CountDownLatch(1);
        private final CountDownLatch go = new CountDownLatch(1);

        ParkingTicker(ManualClock clock) {
            this.clock = clock;
        }

        /** Parks {@code threadName} at the first read whose caller frames (read's caller first) match. */
        void arm(String threadName, Predicate<List<StackWalker.StackFrame>> at) {
            thread = threadName;
            armed.set(at);
        }

        boolean awaitParked(long seconds) throws InterruptedException {
            return parked.await(seconds, TimeUnit.SECONDS);
        }

        void resume() {
            armed.set(null);
            go.countDown();
        }

        @Override
        public long read() {
            Predicate<List<StackWalker.StackFrame>> at = armed.get();
            if (at != null && Thread.currentThread().getName().equals(thread)) {
                List<StackWalker.StackFrame> frames = StackWalker.getInstance()
                        .walk(s -> s.skip(1)
                                .dropWhile(f -> f.getMethodName().equals("now"))
                                .limit(60)
                                .collect(Collectors.toList()));
                if (at.test(frames) && armed.compareAndSet(at, null)) {
                    parked.countDown();
                    try {
                        go.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
            return clock.read();
        }
    }
}
