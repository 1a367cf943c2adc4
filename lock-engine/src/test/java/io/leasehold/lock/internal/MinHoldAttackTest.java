package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Review attacks on LockOptions.minHoldTime (commit 42aa454), on a hand-moved clock that drives both
 * the in-memory store's TTLs and the engine's ticker.
 */
class MinHoldAttackTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private GatedRenewals backend;
    private LockClient client;

    /**
     * Gives every lock key a cluster slot of its own (so leases of different names ride in different
     * renew calls of one round), and, once armed, holds the renewer's thread inside the first renew
     * call it sends, until {@link #proceed}.
     */
    private static final class GatedRenewals extends ForwardingLockBackend {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch proceed = new CountDownLatch(1);
        final List<List<String>> renewKeys = new CopyOnWriteArrayList<>();
        final AtomicInteger renewReplies = new AtomicInteger();
        volatile boolean armed;

        GatedRenewals(LockBackend delegate) {
            super(delegate);
        }

        @Override
        public int slot(String key) {
            return key.hashCode() & 16383;
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (!script.name().equals(ScriptNames.RENEW)) {
                return super.eval(script, keys, args);
            }
            renewKeys.add(List.copyOf(keys));
            if (armed && renewKeys.size() == 1) {
                entered.countDown();
                try {
                    proceed.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.eval(script, keys, args).whenComplete((r, e) -> renewReplies.incrementAndGet());
        }
    }

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        backend = new GatedRenewals(redis.newNode());
        client = LockClient.builder(backend).ticker(clock).build();
    }

    @AfterEach
    void stop() {
        backend.proceed.countDown();
        client.close();
        redis.close();
    }

    private static LockOptions minHold(Duration minHold) {
        return LockOptions.builder().leaseTime(LEASE).minHoldTime(minHold).build();
    }

    /**
     * The renewer takes the leases due in one round, then numbers and sends them call by call (one per
     * slot). A lease released with a hold between those two steps gets its hold numbered N, and the
     * renewal numbered N + 1 right after: renew.lua applies it over the hold (or extend.lua refuses the
     * hold as "superseded", which the release counts as done), and the lock is left with the lease's
     * 30 s TTL and no one renewing it, instead of what the min-hold time has left. Here 10 min - 10 s:
     * the hold is SHORTENED to 30 s (a node whose clock is behind runs the job again after 30 s),
     * which is what the feature promises cannot happen.
     */
    @Test
    void shouldNotLetARenewalNumberedAfterTheHoldShortenIt() throws Exception {
        renewalRacingTheRelease(
                Duration.ofMinutes(10), Duration.ofMinutes(10).minusSeconds(10).toMillis());
    }

    /** The same race with 10 s of the hold left: the lock stays taken 30 s, three times the hold. */
    @Test
    void shouldNotLetARenewalNumberedAfterTheHoldLengthenIt() throws Exception {
        renewalRacingTheRelease(Duration.ofSeconds(20), 10_000);
    }

    private void renewalRacingTheRelease(Duration minHold, long expectedTtlMs) throws Exception {
        Lease a = client.lock("jobs:a", minHold(minHold)).acquire(Duration.ZERO);
        Lease b = client.lock("jobs:b", minHold(minHold)).acquire(Duration.ZERO);
        backend.armed = true;

        clock.advance(Duration.ofSeconds(10)); // both due in the same round, in two calls
        assertTrue(backend.entered.await(10, TimeUnit.SECONDS), "the round's first renew call was sent");
        List<String> firstCall = backend.renewKeys.get(0);
        Lease other = firstCall.contains("leasehold:{jobs:a}") ? b : a;
        String otherKey = "leasehold:{" + other.lockName() + "}";
        assertFalse(firstCall.contains(otherKey), "the other lease rides in a call of its own: " + firstCall);

        // When the other lease is released, 10 s after it was taken, while the round goes on
        assertTrue(other.release(), "release() under the hold");
        assertEquals(LeaseState.RELEASED, other.state());
        assertEquals(expectedTtlMs, redis.pttl(otherKey), "the hold's TTL right after the release");
        backend.proceed.countDown();
        Eventually.until("the round's renew calls were answered", () -> backend.renewReplies.get() >= 2);

        // Then the lock keeps the hold's TTL, not a fresh 30 s lease that no one renews or releases
        assertEquals(
                expectedTtlMs,
                redis.pttl(otherKey),
                "the TTL of " + otherKey + " after the round (renew calls: " + backend.renewKeys + ")");
    }

    /**
     * A lease whose lock was taken by another owner while its lease (30 s) was valid is STOLEN when it is
     * released: so without a min-hold time. With one that has 1 ms left, the hold's TTL command is
     * counted among the lease's validity commands (deadline.begin with 1 ms, less the 2 ms drift margin):
     * the validity seems run out before the reply, and the answer "held by another owner" is taken for a
     * plain expiry: no loss signal, the lease RELEASED (unconfirmed).
     */
    @Test
    void shouldStillReportAStolenLockWhenTheHoldHasAlmostRunOut() throws Exception {
        Lease lease = client.lock("jobs:c", minHold(Duration.ofSeconds(1))).acquire(Duration.ZERO);
        try (LockClient rival =
                LockClient.builder(redis.newNode()).ticker(clock).build()) {
            redis.deleteKey("leasehold:{jobs:c}");
            Lease theirs = rival.lock("jobs:c").acquire(Duration.ZERO);
            clock.advance(Duration.ofMillis(999)); // 1 ms of the min-hold time left; 29 s of the lease

            assertFalse(lease.release(), "release() of a stolen lease");
            assertEquals(
                    LeaseState.LOST, lease.state(), "the lock was another owner's 29 s before the lease could expire");
            LeaseLoss loss = lease.lost().get(5, TimeUnit.SECONDS);
            assertEquals(LeaseLoss.Reason.STOLEN, loss.reason());
            assertTrue(theirs.isValid());
        }
    }

    /** The same, without a min-hold time: the control (passes). */
    @Test
    void controlAStolenLockIsReportedWithoutMinHold() throws Exception {
        Lease lease = client.lock(
                        "jobs:d", LockOptions.builder().leaseTime(LEASE).build())
                .acquire(Duration.ZERO);
        try (LockClient rival =
                LockClient.builder(redis.newNode()).ticker(clock).build()) {
            redis.deleteKey("leasehold:{jobs:d}");
            rival.lock("jobs:d").acquire(Duration.ZERO);
            clock.advance(Duration.ofMillis(999));

            assertFalse(lease.release());
            assertEquals(LeaseState.LOST, lease.state());
            assertEquals(
                    LeaseLoss.Reason.STOLEN,
                    lease.lost().get(5, TimeUnit.SECONDS).reason());
        }
    }
    /** Reentrant callLocked: the inner call's end releases nothing; the outer one's sets the hold once. (Passes.) */
    @Test
    void shouldHoldOnceAtTheOutermostEndOfReentrantCalls() throws Exception {
        var lock = client.lock("jobs:e", minHold(Duration.ofSeconds(10)));
        Lease[] seen = new Lease[2];
        lock.callWithLease(Duration.ZERO, outer -> {
            seen[0] = outer;
            lock.callWithLease(Duration.ZERO, inner -> {
                seen[1] = inner;
                return null;
            });
            assertEquals(LeaseState.HELD, outer.state(), "the inner call's end left the outer lease held");
            assertEquals(30_000, redis.pttl("leasehold:{jobs:e}"), "the inner end set no hold");
            return null;
        });
        assertEquals(LeaseState.RELEASED, seen[0].state());
        assertEquals(10_000, redis.pttl("leasehold:{jobs:e}"), "the hold, set at the outer end");
    }

    /** A body that throws: the exception comes out, and the hold is set all the same. (Passes.) */
    @Test
    void shouldHoldAfterABodyThatThrows() {
        var lock = client.lock("jobs:f", minHold(Duration.ofSeconds(10)));
        IllegalStateException thrown = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalStateException.class,
                () -> lock.callLocked(Duration.ZERO, () -> {
                    throw new IllegalStateException("boom");
                }));
        assertEquals("boom", thrown.getMessage());
        assertEquals(10_000, redis.pttl("leasehold:{jobs:f}"));
    }

    /**
     * close() while the hold's command is on its way (its reply 300 ms late): close waits for it
     * rather than cutting it short or hanging, and the hold is in Redis after. (Passes.)
     */
    @Test
    void shouldLetCloseWaitForAHoldInFlight() throws Exception {
        try (InMemoryLockBackend store = InMemoryLockBackend.withClock(clock);
                LockClient slow = LockClient.builder(new ForwardingLockBackend(store.newNode()) {
                            @Override
                            public CompletableFuture<Object> eval(
                                    LuaScript script, List<String> keys, List<String> args) {
                                if (!script.name().equals(ScriptNames.EXTEND)) {
                                    return super.eval(script, keys, args);
                                }
                                return CompletableFuture.supplyAsync(
                                                () -> null,
                                                CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS))
                                        .thenCompose(x -> super.eval(script, keys, args));
                            }
                        })
                        .ticker(clock)
                        .build()) {
            Lease lease = slow.lock("jobs:g", minHold(Duration.ofSeconds(10))).acquire(Duration.ZERO);
            CompletableFuture<Boolean> released = lease.releaseAsync();
            long start = System.nanoTime();
            slow.close();
            long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(closeMs < 4_000, "close() took " + closeMs + " ms");
            assertTrue(released.get(5, TimeUnit.SECONDS), "the release under the hold");
            assertEquals(10_000, store.pttl("leasehold:{jobs:g}"), "the hold is in the store after close()");
        }
    }

    /**
     * Redis unreachable for the whole release: release() throws ReleaseUnconfirmedException after its
     * command timeout, the lease is RELEASED with no loss, and the lock keeps its lease TTL (as a plain
     * release leaves it). (Passes: documents it.)
     */
    @Test
    void shouldReportAHoldThatCouldNotBeSetAsUnconfirmed() throws Exception {
        try (InMemoryLockBackend store = new InMemoryLockBackend();
                LockClient quick = LockClient.builder(store.newNode())
                        .commandTimeout(Duration.ofMillis(300))
                        .build()) {
            Lease lease = quick.lock("jobs:h", minHold(Duration.ofSeconds(10))).acquire(Duration.ZERO);
            store.makeUnavailable();
            RuntimeException thrown =
                    org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, lease::release);
            assertTrue(thrown instanceof io.leasehold.lock.ReleaseUnconfirmedException, String.valueOf(thrown));
            assertEquals(LeaseState.RELEASED, lease.state());
            assertFalse(lease.lost().isDone());
            store.makeAvailable();
            long pttl = store.pttl("leasehold:{jobs:h}");
            assertTrue(pttl > 10_000 && pttl <= 30_000, "the lease's own TTL stays: " + pttl);
        }
    }
    /**
     * G8 under a min-hold time: the caller gives up (cancels acquireAsync's future) while the lease is
     * on its way to it (its hand-out queued on the callback executor). Nobody ever received the lease,
     * so nothing may be left behind; but the engine ends it with releaseInternal(), which now sets the
     * hold: the lock stays taken for the whole 10 min min-hold time, with no work done under it (every
     * node's @Scheduled job skipped for 10 min). The same path: callLockedAsync cancelled while the lease
     * is on its way (LockedCall.run), and Kotlin's awaitAcquire / awaitTryAcquire cancelled as the lease
     * arrives (awaitOrAbandon { it.releaseAsync() }).
     */
    @Test
    void shouldLeaveNoLockWhenTheCallerGaveUpWhileTheLeaseWasOnItsWay() throws Exception {
        String key = "leasehold:{jobs:i}";
        try (InMemoryLockBackend store = new InMemoryLockBackend();
                GateExecutor gate = new GateExecutor("minhold-callbacks", 1);
                LockClient gated = LockClient.builder(store.newNode())
                        .callbackExecutor(gate)
                        .build()) {
            gate.pause();
            CompletableFuture<Lease> acquiring =
                    gated.lock("jobs:i", minHold(Duration.ofMinutes(10))).acquireAsync(Duration.ofSeconds(5));
            Eventually.until("the lease is on its way", () -> store.exists(key) && gate.parkedCount() >= 1);
            acquiring.cancel(false);
            gate.resume();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (store.exists(key) && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
            assertFalse(
                    store.exists(key),
                    "the lock of a lease nobody received, 3 s after the caller gave up: TTL " + store.pttl(key)
                            + " ms");
        }
    }
}
