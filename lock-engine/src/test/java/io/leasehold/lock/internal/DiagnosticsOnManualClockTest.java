package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockClientDiagnostics;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockClient#diagnostics()} over the real engine and the in-memory store, on a hand-moved
 * clock, so that nothing times out, lingers or is pruned until the test moves it: each count shows
 * what is there while a lock is held and waited for, and both clients come back to quiescent once
 * everything is released.
 */
class DiagnosticsOnManualClockTest {

    private static final String NAME = "orders:42";
    private static final LockOptions RENEWED =
            LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build();
    private static final LockOptions NOT_RENEWED = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();
    /** Past a name's lingering subscription (a second) and the pruning of answered calls (50 ms). */
    private static final Duration SETTLE = Duration.ofSeconds(2);

    private static final long BOUND_SECONDS = 10;

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private LockClient holder;
    private LockClient waiter;

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        holder = LockClient.builder(redis.newNode()).ticker(clock).build();
        waiter = LockClient.builder(redis.newNode()).ticker(clock).build();
    }

    @AfterEach
    void stop() {
        holder.close();
        waiter.close();
        redis.close();
    }

    /**
     * Waits (in real time, briefly: the engine settles on its own threads) until {@code client}'s
     * counts are {@code counts}, in the record's order (waitedNames, subscribedNames, acquisitions,
     * leases, localHolders, renewedLeases, renewalScheduleEntries, releaseResends, watchedCalls), its
     * timer tasks whatever they are; returns the diagnostics that matched.
     */
    private static LockClientDiagnostics awaitCounts(String what, LockClient client, int... counts)
            throws InterruptedException {
        return eventually(what, client, now -> now.equals(withCounts(now.timerTasks(), counts)));
    }

    private static LockClientDiagnostics withCounts(int timerTasks, int... c) {
        return new LockClientDiagnostics(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], timerTasks);
    }

    /** Waits (in real time, briefly) until {@code client}'s diagnostics meet {@code condition}. */
    private static LockClientDiagnostics eventually(
            String what, LockClient client, Predicate<LockClientDiagnostics> condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        LockClientDiagnostics now = client.diagnostics();
        while (!condition.test(now)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what + "; diagnostics now: " + now);
            }
            Thread.sleep(1);
            now = client.diagnostics();
        }
        return now;
    }

    @Test
    void shouldCountNothingButClientWideTimerTasksBeforeAnyLockIsUsed() {
        for (LockClient client : new LockClient[] {holder, waiter}) {
            LockClientDiagnostics fresh = client.diagnostics();
            assertTrue(fresh.isQuiescent(), "fresh: " + fresh);
            assertEquals(withCounts(fresh.timerTasks(), 0, 0, 0, 0, 0, 0, 0, 0, 0), fresh);
        }
    }

    @Test
    void shouldCountAHeldLeaseItsWaiterAndTheirSubscriptionThenComeBackToQuiescent() throws Exception {
        // Given a lease held and renewed, its acquire call answered (and pruned, 50 ms later)
        Lease held = holder.lock(NAME, RENEWED).acquire(Duration.ZERO);
        clock.advance(Duration.ofMillis(100));
        // Then the holder counts one lease, its local holder, and its renewal, scheduled
        LockClientDiagnostics holding = awaitCounts("holding", holder, 0, 0, 0, 1, 1, 1, 1, 0, 0);
        assertTrue(holding.timerTasks() >= 1, "at least the renewal round: " + holding);
        assertFalse(holding.isQuiescent(), "holding: " + holding);

        // When another client waits for it
        CompletableFuture<Lease> waiting = waiter.lock(NAME, NOT_RENEWED).acquireAsync(Duration.ofMinutes(1));
        // Then that client counts one acquisition waiting on one name, whose release channel it subscribed
        LockClientDiagnostics queued = awaitCounts("waiting", waiter, 1, 1, 1, 0, 0, 0, 0, 0, 0);
        assertFalse(queued.isQuiescent(), "waiting: " + queued);

        // When the holder releases and the waiter gets the lock
        assertTrue(held.release());
        Lease next = waiting.get(BOUND_SECONDS, TimeUnit.SECONDS);
        clock.advance(Duration.ofMillis(100));
        // Then the holder keeps nothing, and the waiter its lease (not renewed) and the name's lingering queue
        awaitCounts("released", holder, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        awaitCounts("granted", waiter, 1, 1, 0, 1, 1, 0, 0, 0, 0);

        // When the waiter releases too, and the subscription's linger passes
        assertTrue(next.release());
        clock.advance(SETTLE);
        // Then both are quiescent: nothing counted but (at most) the client-wide timer tasks
        for (LockClient client : new LockClient[] {holder, waiter}) {
            LockClientDiagnostics rest = eventually("quiescent", client, LockClientDiagnostics::isQuiescent);
            assertEquals(withCounts(rest.timerTasks(), 0, 0, 0, 0, 0, 0, 0, 0, 0), rest);
        }
    }

    @Test
    void shouldCountNothingHeldOnceClosedWhileHolding() throws Exception {
        holder.lock(NAME, RENEWED).acquire(Duration.ZERO);
        holder.lock("orders:43", NOT_RENEWED).acquire(Duration.ZERO);
        LockClientDiagnostics holding = holder.diagnostics();
        assertEquals(2, holding.leases(), "holding: " + holding);
        assertEquals(1, holding.renewedLeases(), "holding: " + holding);

        holder.close();

        // (a lease leaves the count as its release settles, which close() waits for)
        eventually(
                "no lease left",
                holder,
                d -> d.leases() == 0 && d.renewedLeases() == 0 && d.localHolders() == 0 && d.acquisitions() == 0);
    }
}
