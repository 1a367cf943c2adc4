package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How many renew calls a client with many leases makes (G5), on a hand-moved clock: the clock moves
 * in small steps, and after each one the test waits until the engine has caught up (every lease
 * renewed that was due), so the count per renewal period is exact and no renewal races real time.
 */
class RenewalBatchingOnManualClockTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration PERIOD = LEASE.dividedBy(3);
    private static final Duration STEP = Duration.ofMillis(10);
    private static final long BOUND_SECONDS = 30;
    private static final LockOptions RENEWED =
            LockOptions.builder().leaseTime(LEASE).autoRenew(true).build();

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private CountingLockBackend counted;
    private LockClient client;

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        counted = new CountingLockBackend(redis.newNode());
        client = LockClient.builder(counted).ticker(clock).build();
    }

    @AfterEach
    void stop() {
        client.close();
        redis.close();
    }

    @Test
    void shouldRenewTenThousandLeasesInAtMostAHundredCallsPerPeriod() throws Exception {
        // Given 10,000 auto-renewed leases of 3 s acquired at 100 different moments, 10 ms apart: spread
        // over a whole renewal period, so that no single renewal round can take them all along
        List<Lease> leases = acquireSpread(10_000, 100, STEP);

        // When the clock runs through five renewal periods
        List<Long> callsPerPeriod = new ArrayList<>();
        for (int period = 0; period < 5; period++) {
            callsPerPeriod.add(renewCallsWhileRunning(PERIOD, leases));
        }

        // Then every period took at most 100 renew calls (100 leases or more per call, Redisson's count: the
        // in-memory backend tells no run time and answers in no time on this clock, so the batch stays at
        // its start), and no lease was lost
        assertTrue(
                callsPerPeriod.stream().allMatch(calls -> calls > 0 && calls <= 100),
                () -> "renew calls per period: " + callsPerPeriod);
        assertEquals(
                0,
                leases.stream()
                        .filter(lease -> !lease.isValid() || lease.lost().isDone())
                        .count(),
                "leases no longer valid");
    }

    @Test
    void shouldRenewLeasesAcquiredAtDifferentMomentsTogether() throws Exception {
        // Given 100 leases (one batch at the start) taken at 20 different moments, 10 ms apart: less than
        // half a renewal period between the first and the last, so each may ride along with the first one due
        List<Lease> leases = acquireSpread(100, 20, STEP);

        // When the clock runs through the first renewal period and four more
        long first = renewCallsWhileRunning(PERIOD, leases);
        List<Long> later = new ArrayList<>();
        for (int period = 0; period < 4; period++) {
            later.add(renewCallsWhileRunning(PERIOD, leases));
        }

        // Then one call per period renewed them all: the lease first due took the others along
        assertEquals(1, first, "renew calls in the first period");
        assertEquals(List.of(1L, 1L, 1L, 1L), later, "renew calls in the next periods");
    }

    @Test
    void shouldSendEachRenewalTheValueThePreviousOneWroteSoThatRedisTakesTheShortCheck() throws Exception {
        // Given renew calls recorded on their way to the backend
        List<List<String>> renewArgs = new CopyOnWriteArrayList<>();
        LockClient recorded = LockClient.builder(new ForwardingLockBackend(redis.newNode()) {
                    @Override
                    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
                        if (script.name().equals(ScriptNames.RENEW)) {
                            renewArgs.add(List.copyOf(args));
                        }
                        return super.eval(script, keys, args);
                    }
                })
                .ticker(clock)
                .build();
        try {
            Lease lease = recorded.lock("known", RENEWED).acquire(Duration.ZERO);

            // When it is renewed three times
            for (int period = 0; period < 3; period++) {
                renewCallsWhileRunning(PERIOD, List.of(lease));
            }

            // Then each call gives the lease time once, and as the value Redis holds the one the previous
            // renewal wrote (the first, the value as acquired): renew.lua can then renew by one comparison
            assertEquals(3, renewArgs.size(), () -> "renew calls: " + renewArgs);
            String owner = renewArgs.get(0).get(1).split(":")[0];
            String held = owner + ":" + lease.fencingToken();
            assertEquals(List.of(Long.toString(LEASE.toMillis()), held, held + ":1"), renewArgs.get(0));
            assertEquals(List.of(Long.toString(LEASE.toMillis()), held + ":1", held + ":2"), renewArgs.get(1));
            assertEquals(List.of(Long.toString(LEASE.toMillis()), held + ":2", held + ":3"), renewArgs.get(2));
            assertTrue(lease.isValid(), "the lease is held throughout");
        } finally {
            recorded.close();
        }
    }

    /** Acquires {@code count} leases in {@code moments} equal groups, moving the clock by {@code between} between groups. */
    private List<Lease> acquireSpread(int count, int moments, Duration between) {
        List<Lease> leases = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (i > 0 && i % (count / moments) == 0) {
                clock.advance(between);
            }
            leases.add(client.lock("batch:" + i, RENEWED).acquire(Duration.ZERO));
        }
        return leases;
    }

    /** Moves the clock on by {@code span} in steps, letting the engine catch up after each; returns the renew calls made. */
    private long renewCallsWhileRunning(Duration span, List<Lease> leases) throws InterruptedException {
        long before = counted.count(ScriptNames.RENEW);
        for (long moved = 0; moved < span.toNanos(); moved += STEP.toNanos()) {
            clock.advance(STEP);
            awaitRenewalsCaughtUp(leases);
        }
        return counted.count(ScriptNames.RENEW) - before;
    }

    /**
     * Waits until no lease is overdue: a lease whose last renewal (or acquisition) was a whole renewal
     * period ago or more has at most {@code LEASE - drift - PERIOD} left, every other one more.
     */
    private void awaitRenewalsCaughtUp(List<Lease> leases) throws InterruptedException {
        Duration drift = Duration.ofMillis(2 + LEASE.toMillis() / 100);
        Duration renewedWithinAPeriod = LEASE.minus(drift).minus(PERIOD);
        eventually(
                "every lease due was renewed",
                () -> leases.stream()
                        .allMatch(lease ->
                                lease.lost().isDone() || lease.remaining().compareTo(renewedWithinAPeriod) > 0));
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(1);
        }
    }
}
