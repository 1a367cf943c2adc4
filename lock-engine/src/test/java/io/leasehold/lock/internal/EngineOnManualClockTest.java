package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine on a hand-moved clock: one {@link ManualClock} drives both the in-memory store's TTLs
 * and the engine's ticker, so a lease runs out (and is declared {@code EXPIRED}, not
 * {@code STOLEN}), renewals come due and waits end exactly when the test moves the clock, with no
 * real waiting and no race with real time.
 */
class EngineOnManualClockTest {

    private static final String NAME = "orders:42";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final long BOUND_SECONDS = 10;
    /** What a lease confirmed at the clock's current reading has left: the lease less the drift margin (2 ms + 1 %). */
    private static final Duration FULL_VALIDITY = LEASE.minusMillis(2 + LEASE.toMillis() / 100);

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private CountingLockBackend counted;
    /** Renewal failures the engine has handled: it tells its listeners after it scheduled the retry. */
    private final AtomicInteger failedRenewals = new AtomicInteger();

    private final LockEventListener countingFailures = new LockEventListener() {
        @Override
        public void onRenewalFailed(String lockName, long fencingToken, Throwable cause) {
            failedRenewals.incrementAndGet();
        }
    };
    private LockClient client;

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        counted = new CountingLockBackend(redis.newNode());
        client = LockClient.builder(counted)
                .ticker(clock)
                .listener(countingFailures)
                .build();
    }

    @AfterEach
    void stop() {
        client.close();
        redis.close();
    }

    private Lease acquire(boolean autoRenew) {
        return client.lock(
                        NAME,
                        LockOptions.builder()
                                .leaseTime(LEASE)
                                .autoRenew(autoRenew)
                                .build())
                .acquire(Duration.ZERO);
    }

    private static LeaseLoss lossOf(Lease lease) throws Exception {
        return lease.lost().get(BOUND_SECONDS, TimeUnit.SECONDS);
    }

    /** Waits (in real time, briefly) for the engine's timer to act on a clock move. */
    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(1);
        }
    }

    @Test
    void shouldDeclareALeaseExpiredWhenTheClockPassesItsValidity() throws Exception {
        Lease lease = acquire(false);

        clock.advance(LEASE.minusSeconds(1));
        assertTrue(lease.isValid(), "valid a second before its lease ends");
        clock.advance(Duration.ofSeconds(1));

        LeaseLoss loss = lossOf(lease);
        assertEquals(LeaseLoss.Reason.EXPIRED, loss.reason());
        assertEquals(LeaseState.LOST, lease.state());
        assertFalse(redis.exists("leasehold:{" + NAME + "}"), "the key ran out in the store at the same moment");
    }

    @Test
    void shouldNeverCountOnMoreThanTheLeaseMinusTheDriftMargin() {
        Lease lease = acquire(false);

        // The clock stands still: remaining() is exactly the lease minus the drift margin
        assertEquals(FULL_VALIDITY, lease.remaining());
    }

    @Test
    void shouldRenewEveryThirdOfTheLeaseAsTheClockMoves() throws Exception {
        Lease lease = acquire(true);

        for (int round = 1; round <= 9; round++) {
            clock.advance(LEASE.dividedBy(3));
            long expected = round;
            eventually("renewal " + round + " was made", () -> counted.count(ScriptNames.RENEW) >= expected);
            // The clock moves on only once the renewal is confirmed, counted from this moment (a whole
            // validity left): the engine counts a renewal from when the call is written, which comes a
            // moment after the counter saw it, so a clock moved in between would rightly put the next
            // renewal a third after that later time
            eventually(
                    "renewal " + round + " was confirmed",
                    () -> lease.remaining().equals(FULL_VALIDITY));
        }

        assertTrue(lease.isValid(), "valid after three lease times of renewals");
        assertFalse(lease.lost().isDone());
        // (the counter counts a call as it is made, a moment before the store runs it)
        eventually(
                "the last renewal set a full lease", () -> redis.pttl("leasehold:{" + NAME + "}") == LEASE.toMillis());
    }

    @Test
    void shouldDeclareBackendUnavailableWhenNoRenewalGetsThroughBeforeTheDeadline() throws Exception {
        Lease lease = acquire(true);
        redis.makeUnavailable();

        // The renewal a third into the lease fails, and so does its retry a tenth of the lease later
        // (each clock move waits until the engine has handled the failure before it, so that the retry
        // is scheduled from the time the failure came, not from a later one)
        clock.advance(LEASE.dividedBy(3));
        eventually("the renewal failed", () -> failedRenewals.get() >= 1);
        clock.advance(LEASE.dividedBy(10));
        eventually("its retry failed", () -> failedRenewals.get() >= 2);
        clock.advance(LEASE);

        LeaseLoss loss = lossOf(lease);
        assertEquals(LeaseLoss.Reason.BACKEND_UNAVAILABLE, loss.reason());
        assertTrue(loss.cause().isPresent(), "the renewal failure is attached");
        assertTrue(counted.count(ScriptNames.RENEW) >= 2, "renewals were tried: " + counted.counts());
    }

    @Test
    void shouldEndAWaitWhenTheClockPassesItsDeadline() throws Exception {
        Lease held = acquire(false);
        try (LockClient other =
                LockClient.builder(redis.newNode()).ticker(clock).build()) {
            CompletableFuture<Lease> waiting = other.lock(NAME).acquireAsync(Duration.ofSeconds(5));
            clock.advance(Duration.ofSeconds(4));
            assertFalse(waiting.isDone(), "still waiting with a second left");

            clock.advance(Duration.ofSeconds(1));

            ExecutionException thrown = org.junit.jupiter.api.Assertions.assertThrows(
                    ExecutionException.class, () -> waiting.get(BOUND_SECONDS, TimeUnit.SECONDS));
            assertInstanceOf(LockTimeoutException.class, thrown.getCause());
            assertTrue(held.isValid());
        }
    }

    @Test
    void shouldSayLostTheMomentTheValidityRunsOutEvenBeforeTheTimerFires() {
        Lease lease = acquire(false);

        clock.advance(LEASE);

        // No waiting for the engine's timer: reading the state is enough to see the loss
        assertEquals(LeaseState.LOST, lease.state());
        assertFalse(lease.isValid());
    }

    @Test
    void shouldTreatAReleaseAfterTheValidityRanOutAsALossNotARelease() throws Exception {
        Lease lease = acquire(false);

        clock.advance(LEASE);

        assertFalse(lease.release(), "nothing was released: the lease was already over");
        assertEquals(LeaseLoss.Reason.EXPIRED, lossOf(lease).reason());
    }

    @Test
    void shouldThrowLeaseLostFromABodyThatOutlivedItsLease() {
        LockOptions noRenew =
                LockOptions.builder().leaseTime(LEASE).autoRenew(false).build();

        // A body that stalls past its lease (a long GC pause, a stopped process) returns normally
        io.leasehold.lock.LeaseLostException thrown = org.junit.jupiter.api.Assertions.assertThrows(
                io.leasehold.lock.LeaseLostException.class,
                () -> client.lock(NAME, noRenew).callWithLease(Duration.ZERO, lease -> {
                    clock.advance(LEASE.plusSeconds(1));
                    return "done";
                }));

        assertEquals(LeaseLoss.Reason.EXPIRED, thrown.loss().reason());
    }

    @Test
    void shouldCallAStalledProcessesLossExpiredNotBackendUnavailable() {
        // An auto-renewed lease whose process stalls past its validity (the clock jumps, as it does for a
        // process stopped or paused in a long GC): no renewal was even sent, so Redis is not to blame
        Lease lease = acquire(true);

        clock.advance(LEASE.plusSeconds(1));

        assertEquals(LeaseState.LOST, lease.state());
        assertEquals(LeaseLoss.Reason.EXPIRED, lease.lost().join().reason());
    }

    @Test
    void shouldCallAStalledProcessesLossExpiredEvenWhenItsOverdueRenewalTickRunsFirst() throws Exception {
        // Given Redis answers slowly, so that a renewal sent now stays in flight for a while
        Lease lease = acquire(true);
        redis.setLatency(Duration.ofMillis(500));

        // When the process stalls past the lease and, on waking, the engine's timer runs first: the
        // renewal tick (due long ago) comes before the loss check
        clock.advance(LEASE.plusSeconds(1));

        // Then the lease is lost as EXPIRED: no renewal was sent in time, so Redis is not to blame
        assertEquals(LeaseLoss.Reason.EXPIRED, lossOf(lease).reason());
        assertEquals(0, counted.count(ScriptNames.RENEW), "no renewal is sent for a lease past its loss check");
    }

    @Test
    void shouldKeepAnAutoRenewedLeaseAfterExtendingItToAFewTensOfMilliseconds() throws Exception {
        // Given an auto-renewed 30 s lease extended to 100 ms (the loss check's lead must come from the
        // 100 ms in force, not from the 30 s option, or the check would fall before now)
        Lease lease = acquire(true);
        lease.extend(Duration.ofMillis(100));
        assertTrue(lease.isValid(), "valid right after the extend");

        // When the clock reaches the renewal, a third of what is left
        clock.advance(Duration.ofMillis(40));
        eventually("a renewal was made", () -> counted.count(ScriptNames.RENEW) >= 1);

        // Then the watchdog has renewed it back to the lock's lease time, and it was never lost
        eventually("the renewal set a full lease", () -> redis.pttl("leasehold:{" + NAME + "}") == LEASE.toMillis());
        assertFalse(lease.lost().isDone(), "not lost");
        assertEquals(LeaseState.HELD, lease.state());
    }

    @Test
    void shouldRetryAFailedRenewalInTimeForAShorterExtendSentWhileItWasInFlight() throws Exception {
        // Given an auto-renewed 30 s lease whose first renewal is held in flight
        HeldRenewals held = new HeldRenewals(counted);
        try (LockClient gated = LockClient.builder(held)
                .ticker(clock)
                .listener(countingFailures)
                .build()) {
            Lease lease = gated.lock(
                            NAME,
                            LockOptions.builder()
                                    .leaseTime(LEASE)
                                    .autoRenew(true)
                                    .build())
                    .acquire(Duration.ZERO);
            clock.advance(LEASE.dividedBy(3));
            CompletableFuture<Object> renewal = held.next();

            // When the lease is extended to 900 ms meanwhile, and then that renewal fails
            lease.extend(Duration.ofMillis(900));
            held.release();
            renewal.completeExceptionally(new IllegalStateException("connection reset while renewing"));
            // (the engine may attach to the call only after this: wait until it has handled the failure)
            eventually(
                    "the failure was handled",
                    () -> failedRenewals.get() >= 1 && lease.state() == LeaseState.UNCERTAIN);

            // Then it is retried by a third of the 900 ms, not after the usual 3 s back-off, and the lease lives on
            clock.advance(Duration.ofMillis(300));
            eventually(
                    "the renewal was retried",
                    () -> counted.count(ScriptNames.RENEW) >= 1); // (the held one never got there)
            eventually(
                    "the retry was confirmed", () -> lease.state() == LeaseState.HELD); // (UNCERTAIN since the failure)
            assertEquals(LEASE.toMillis(), redis.pttl("leasehold:{" + NAME + "}"), "the retry set a full lease");
            clock.advance(Duration.ofMillis(700));
            assertFalse(lease.lost().isDone(), () -> "lost: " + lease.lost().getNow(null));
            assertEquals(LeaseState.HELD, lease.state());
        }
    }

    /** Holds back the next renew call (it never reaches the store) until the test answers it; later ones pass. */
    private static final class HeldRenewals extends ForwardingLockBackend {
        private final BlockingQueue<CompletableFuture<Object>> calls = new LinkedBlockingQueue<>();
        private volatile boolean holding = true;

        HeldRenewals(LockBackend delegate) {
            super(delegate);
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (holding && script.name().equals(ScriptNames.RENEW)) {
                CompletableFuture<Object> reply = new CompletableFuture<>();
                calls.add(reply);
                return reply;
            }
            return super.eval(script, keys, args);
        }

        /** The renew call held back, once it was made. */
        CompletableFuture<Object> next() throws InterruptedException {
            CompletableFuture<Object> call = calls.poll(BOUND_SECONDS, TimeUnit.SECONDS);
            if (call == null) {
                throw new AssertionError("no renew call was made");
            }
            return call;
        }

        /** Lets later renew calls through. */
        void release() {
            holding = false;
        }

        @Override
        public void close() {
            // the test's store is closed by the test
        }
    }

    @Test
    void shouldNotHandOutALeaseWhoseReplyCameSoLateThatItsLossWouldBeDeclaredAtOnce() throws Exception {
        // Given every call takes 300 ms of real time, and the clock jumps almost a whole lease while
        // the first attempt's reply is on its way
        // (a command timeout longer than the jump, so that the jump does not time the attempt out)
        CountingLockBackend slow = new CountingLockBackend(redis.newNode());
        try (LockClient patient = LockClient.builder(slow)
                .ticker(clock)
                .commandTimeout(Duration.ofMinutes(1))
                .build()) {
            redis.setLatency(Duration.ofMillis(300));
            CompletableFuture<Lease> acquiring = patient.lock(
                            NAME,
                            LockOptions.builder()
                                    .leaseTime(LEASE)
                                    .autoRenew(false)
                                    .build())
                    .acquireAsync(Duration.ofMinutes(5));
            eventually("the first attempt is sent", () -> slow.count(ScriptNames.ACQUIRE) >= 1);
            clock.advance(LEASE.minusMillis(350)); // past the loss check (drift 302 ms + lead 100 ms before the end)

            Lease lease = acquiring.get(BOUND_SECONDS, TimeUnit.SECONDS);

            // Then that reply was discarded and a second attempt (a new owner) got a lease with its full validity
            assertEquals(2, slow.count(ScriptNames.ACQUIRE), slow.counts().toString());
            assertTrue(lease.remaining().compareTo(LEASE.minusSeconds(1)) > 0, "remaining " + lease.remaining());
            assertFalse(lease.lost().isDone());
        }
    }
}
