package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link LeaseState#UNCERTAIN} state on a hand-moved clock: a failed renewal makes a lease
 * uncertain at once (long before its deadline), a confirmed one makes it held again, and a streak of
 * failures is reported to listeners once, not once per attempt.
 */
class LeaseUncertaintyOnManualClockTest {

    private static final String NAME = "orders:7";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RENEW_PERIOD = LEASE.dividedBy(3);
    private static final Duration RETRY = LEASE.dividedBy(10);
    private static final long BOUND_SECONDS = 10;

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private CountingLockBackend counted;
    private LockClient client;
    private final List<String> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        counted = new CountingLockBackend(redis.newNode());
        client = LockClient.builder(counted)
                .ticker(clock)
                .listener(new EventNames(events))
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

    @Test
    void shouldGoUncertainWhenARenewalFailsAndHeldAgainWhenOneIsConfirmed() throws Exception {
        Lease lease = acquire(true);
        assertEquals(LeaseState.HELD, lease.state());

        // When the first renewal fails
        redis.makeUnavailable();
        clock.advance(RENEW_PERIOD);
        eventually("the lease went uncertain", () -> lease.state() == LeaseState.UNCERTAIN);
        assertTrue(lease.isValid(), "an uncertain lease is still locally valid");
        assertFalse(lease.lost().isDone(), "uncertain is not lost");

        // And the retry fails too: still one uncertain event for the streak
        clock.advance(RETRY);
        eventually("the retry was made", () -> counted.count(ScriptNames.RENEW) >= 2);
        eventually("both failures reported", () -> count("renewalFailed") == 2);
        assertEquals(LeaseState.UNCERTAIN, lease.state());

        // Then a confirmed renewal makes it held again
        redis.makeAvailable();
        clock.advance(RETRY);
        eventually("the lease is held again", () -> lease.state() == LeaseState.HELD);
        eventually("reconfirmation reported", () -> count("reconfirmed") == 1);
        assertEquals(
                List.of("acquired", "renewalFailed", "uncertain", "renewalFailed", "renewed", "reconfirmed"), events);
        assertFalse(lease.lost().isDone(), "never lost");
        assertTrue(lease.release());
        eventually("release reported", () -> count("released") == 1);
    }

    @Test
    void shouldGoFromUncertainToLostAtTheDeadlineWhenRenewalsKeepFailing() throws Exception {
        Lease lease = acquire(true);
        redis.makeUnavailable();

        clock.advance(RENEW_PERIOD);
        eventually("the lease went uncertain", () -> lease.state() == LeaseState.UNCERTAIN);
        clock.advance(LEASE.minus(RENEW_PERIOD));

        LeaseLoss loss = lease.lost().get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertEquals(LeaseLoss.Reason.BACKEND_UNAVAILABLE, loss.reason());
        assertEquals(LeaseState.LOST, lease.state());
        eventually("the loss reported", () -> count("lost") == 1);
        List<String> seen = List.copyOf(events);
        assertEquals(
                1, seen.stream().filter("uncertain"::equals).count(), "one uncertain event for the streak: " + seen);
        assertTrue(seen.indexOf("uncertain") < seen.indexOf("lost"), "uncertain before lost: " + seen);
        assertEquals("lost", seen.get(seen.size() - 1), "nothing after the loss: " + seen);
        assertFalse(seen.contains("reconfirmed"), "never reconfirmed: " + seen);
    }

    @Test
    void shouldGoUncertainWhenAnExtendFailsAndHeldAgainWhenOneSucceeds() throws Exception {
        Lease lease = acquire(false);

        redis.makeUnavailable();
        assertThrows(LockBackendException.class, () -> lease.extend(LEASE));
        assertEquals(LeaseState.UNCERTAIN, lease.state(), "an extend of unknown outcome makes the lease uncertain");
        assertTrue(lease.isValid());

        redis.makeAvailable();
        lease.extend(LEASE);
        assertEquals(LeaseState.HELD, lease.state());
        eventually("the events reported", () -> count("reconfirmed") == 1);
        assertEquals(List.of("acquired", "renewalFailed", "uncertain", "renewed", "reconfirmed"), events);
    }

    @Test
    void shouldEndUncertaintyWithTheRelease() throws Exception {
        Lease lease = acquire(true);
        redis.makeUnavailable();
        clock.advance(RENEW_PERIOD);
        eventually("the lease went uncertain", () -> lease.state() == LeaseState.UNCERTAIN);

        redis.makeAvailable();
        assertTrue(lease.release(), "an uncertain lease can be released");
        assertEquals(LeaseState.RELEASED, lease.state());
        eventually("the release reported", () -> count("released") == 1);
        assertEquals(List.of("acquired", "renewalFailed", "uncertain", "released"), events);
    }

    @Test
    void shouldEndTheLeaseForListenersWhenItsReleaseCannotReachRedis() throws Exception {
        Lease lease = acquire(true);
        redis.makeUnavailable();

        ExecutionException failure = releaseWhileRedisIsAway(lease);

        assertTrue(
                failure.getCause() instanceof LockBackendException, "the caller hears the release failed: " + failure);
        assertEquals(LeaseState.RELEASED, lease.state(), "the lease ended here; its lock expires in Redis");
        eventually("the ending reported", () -> count("released") == 1);
        assertEquals(
                List.of("acquired", "released"),
                events,
                "one ending, so that nothing counts the lease as held any more");
    }

    @Test
    void shouldEndAnUncertainLeaseForListenersWhenItsReleaseCannotReachRedis() throws Exception {
        Lease lease = acquire(true);
        redis.makeUnavailable();
        clock.advance(RENEW_PERIOD);
        eventually("the lease went uncertain", () -> lease.state() == LeaseState.UNCERTAIN);

        releaseWhileRedisIsAway(lease);

        assertEquals(LeaseState.RELEASED, lease.state());
        eventually("the ending reported", () -> count("released") == 1);
        assertEquals("released", events.get(events.size() - 1), "the release ends the uncertain lease: " + events);
        assertFalse(events.contains("lost"), "released, not lost: " + events);
    }

    /** Releases while Redis is away, moving the clock through the release's retries; returns how it failed. */
    private ExecutionException releaseWhileRedisIsAway(Lease lease) throws Exception {
        CompletableFuture<Boolean> release = lease.releaseAsync();
        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!release.isDone() && System.nanoTime() - bound < 0) {
            clock.advance(Duration.ofMillis(100)); // the release retries with back-off within the command timeout
            Thread.sleep(1);
        }
        return assertThrows(ExecutionException.class, () -> release.get(BOUND_SECONDS, TimeUnit.SECONDS));
    }

    private long count(String event) {
        return events.stream().filter(event::equals).count();
    }

    private void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what + "; events: "
                        + events.stream().collect(Collectors.joining(", ")));
            }
            Thread.sleep(1);
        }
    }
}
