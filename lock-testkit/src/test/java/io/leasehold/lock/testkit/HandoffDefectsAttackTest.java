package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.HandoffGateBackend.Gate;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Defects of the contended path's local handoff (commits 1f6b6c8, 9eb9c58), found by an adversarial
 * review: each test pins one scenario that broke a guarantee (each failed before its fix). The
 * comment on each test gives the interleaving and the cause.
 */
class HandoffDefectsAttackTest extends HandoffAttackSupport {

    private static final LockOptions NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();

    /**
     * G6/G9: a release whose handoff ran but whose reply was lost to a connection reset must not
     * report a loss that never happened.
     *
     * <p>Interleaving found by the review (before the fix): holder L, waiters W and W2 of one client.
     * L.release() hands off to W: the script deletes L's lock and grants W's owner, but the reply
     * fails (connection reset). W heard the failure as its attempt's and retried after 20 ms with the
     * same owner (getting the lock), while the release was resent after 50 ms as a plain release
     * naming W's owner. Meanwhile W released, handing the lock to W2, so L's resend found W2's lock
     * (-1): L.release() returned false and the listeners heard onLeaseLost(STOLEN) for a lease that
     * was released normally, a false "work may have overlapped" alarm.
     *
     * <p>The fix ({@code HandoffRelease}): the handoff is resent as a unit while W's attempt stays in
     * flight, so nothing can move the lock on between the lost reply and the resend, whose answer
     * (W's owner holds it: acquired, released) settles both sides. Then W's own release hands on.
     */
    @Test
    void shouldNotReportALossWhenTheResentReleaseOfAFailedHandoffFindsTheLockMovedOn() throws Exception {
        String name = "handoff-defect:false-loss";
        LockClient node = client(Duration.ofSeconds(5));
        Lease held = node.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> first = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitQueued(name, 2);
        CompletableFuture<Lease> second = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        gate.gateNextHandoff(Gate.FAIL_AFTER_RUN);

        CompletableFuture<Boolean> released = held.releaseAsync();
        Object handoffReply = gate.gated.get(5, TimeUnit.SECONDS);
        assertEquals(
                1L,
                ((java.util.List<?>) handoffReply).get(0),
                "the handoff ran and granted the waiter: " + handoffReply);
        assertFalse(
                released.isDone() || first.isDone(), "a handoff of unknown outcome settles nobody before its resend");
        // The handoff is resent after 20 ms: it finds the waiter's owner holding the lock.
        advanceUntil("the first waiter got its lease", Duration.ofMillis(5), Duration.ofMillis(30), first::isDone);
        Lease firstLease = first.get(5, TimeUnit.SECONDS);
        assertTrue(firstLease.fencingToken() > held.fencingToken(), "a fresh token for the first waiter");
        assertTrue(firstLease.release(), "the first waiter's release (a handoff to the second)");
        Lease secondLease = second.get(5, TimeUnit.SECONDS);

        boolean deleted = released.get(5, TimeUnit.SECONDS);
        assertTrue(
                deleted && !events.lostReported(held.fencingToken()),
                "the holder's release was handed over (the handoff script deleted its lock), yet release() returned "
                        + deleted + " and the listeners heard " + events + " (a false loss); calls " + gate.calls);
        secondLease.release();
    }

    /**
     * G7: a release message while a lease of the waiter's own client is held is ignored, so a lock
     * freed by {@link io.leasehold.lock.DistributedLock#forceRelease()} stays free while that
     * client's waiters sleep until the holder's renewal finds the lock gone (a third of the lease)
     * or, without auto-renew, until the end of its validity (30 s here).
     *
     * <p>Interleaving: L (client A, auto-renew off, 30 s) holds; W of client A queues. An operator
     * force-releases the lock (DEL + SPUBLISH). The message reaches A's queue: W.releaseSeen() ->
     * wake() -> localHolderValidityLeft() > 0 (L is still locally held: force-release does not tell
     * it) -> W reschedules its fallback at the end of L's validity and asks nothing. The lock is free
     * and nobody takes it. Before the change, W tried at once and got it.
     *
     * <p>Cause: Acquisition.wake() (Acquisition.java:146-156) applies the "a local lease holds it"
     * shortcut to every wake-up, release messages included. Fix: a release message (or a
     * resubscription) proves the lock was deleted, so releaseSeen() must attempt even while a local
     * lease is held (a message caused by the local lease's own release is published only after it
     * left {@code holders}); keep the shortcut for the became-head and fallback wake-ups.
     */
    @Test
    void shouldWakeALocalWaiterWhenTheLockIsForceReleasedUnderItsClientsLease() throws Exception {
        String name = "handoff-defect:force-release";
        LockClient node = client(Duration.ofSeconds(5));
        Lease held = node.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitQueued(name, 2);

        assertTrue(other().lock(name).forceRelease(), "the operator's forceRelease()");
        Lease next;
        try {
            next = waiting.get(5, TimeUnit.SECONDS); // the manual clock stands still: no fallback can fire
        } catch (TimeoutException e) {
            throw new AssertionError("G7: the lock has been free for 5 s (exists=" + redis.exists(lockKey(name))
                    + ") after a release message, but the waiter of the holder's client sleeps until the holder's"
                    + " validity ends (" + held.remaining() + " left, state " + held.state() + "); calls "
                    + gate.calls);
        }
        assertTrue(next.fencingToken() > held.fencingToken());
        next.release();
    }

    /**
     * G7: a handoff whose command ran only after the waiter's retry (its connection was slow past the
     * command timeout; Jedis runs the retry on another connection) grants the lock to the waiter's
     * owner in Redis, publishes nothing, and the waiter ignores the late reply: it sleeps until its
     * fallback (the releasing holder's TTL, up to a whole lease) while Redis holds the lock for it and
     * every other waiter is kept out.
     *
     * <p>Interleaving: L releases, handing off to W; the handoff's send is delayed. After the command
     * timeout W hears a TimeoutException and retries after 20 ms; L's release fails (no budget left
     * for a resend). W's retry runs first: L's lock is still there, so it is contended and schedules
     * its fallback at L's PTTL (~30 s). Then the delayed handoff runs: L's owner holds the lock, so it
     * is deleted and taken for W's owner, without a publish. Its late reply reaches
     * Acquisition.onLateReply, which returns at once because W's round is still going ("a later
     * attempt with the same owner decides"), but no later attempt is coming.
     *
     * <p>Cause: Acquisition.onLateReply (Acquisition.java:541-549). A late acquire can count on a
     * release message (the lock was freed by a publishing release); a late handoff grants silently.
     * Fix: when a late reply of the current round says acquired (status 1), wake the waiter to retry
     * now (idempotent: same owner, same token), or hand the lease out from that reply if still valid.
     */
    @Test
    void shouldNotLeaveAWaiterAsleepWhileRedisHoldsTheLockForItAfterALateHandoff() throws Exception {
        String name = "handoff-defect:late-handoff";
        LockClient node = client(Duration.ofSeconds(2));
        Lease held = node.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(120));
        awaitQueued(name, 2);
        gate.gateNextHandoff(Gate.HOLD_SEND);

        CompletableFuture<Boolean> released = held.releaseAsync();
        Eventually.until("the handoff is held before it reaches Redis", gate::holding);
        advanceUntil("the handoff timed out", Duration.ofMillis(500), Duration.ofSeconds(3), released::isDone);
        assertTrue(released.isCompletedExceptionally(), "the holder's release fails after the command timeout");
        advanceUntil(
                "the waiter's retry was sent",
                Duration.ofMillis(5),
                Duration.ofMillis(200),
                () -> gate.plainAcquires.get() >= 3);
        assertTrue(gate.calls.get(gate.calls.size() - 1).startsWith("acquire"), "the retry: " + gate.calls);
        gate.letGo(); // the delayed handoff reaches Redis now
        String waiterOwner = gate.lastHandoffArgs.get().get(0);
        Eventually.until(
                "the handoff granted the waiter's owner",
                () -> redis.get(lockKey(name))
                        .map(v -> v.startsWith(waiterOwner + ":"))
                        .orElse(false));

        try {
            waiting.get(5, TimeUnit.SECONDS).release(); // the manual clock stands still: no fallback can fire
        } catch (TimeoutException e) {
            throw new AssertionError("G7: Redis has held the lock for the waiter's owner for 5 s (value "
                    + redis.get(lockKey(name)).orElse("-") + ", PTTL " + redis.pttl(lockKey(name))
                    + " ms), but the waiter sleeps until its fallback; calls " + gate.calls);
        }
    }

    /**
     * G9 (and G11): a handoff that fails for good fails the holder's release with it, although a plain
     * release would have worked: here the name's fencing counter was overwritten by another
     * application, so acquire.lua refuses (as it should, for the waiter), and the holder's release,
     * which never needed the counter, now throws LockBackendException and leaves its lock in Redis
     * for the whole lease time.
     *
     * <p>Cause: Engine.handOff (Engine.java:194-195) passes a non-transient failure of the handoff to
     * afterFailedSend, which fails the release at once instead of resending it plainly. Fix: when the
     * handoff fails with a non-transient error (a script error reply), send the plain release.lua for
     * the releasing owner; the waiter still hears the error as its own attempt's.
     */
    @Test
    void shouldReleaseTheHoldersLockWhenTheHandoffFailsForTheWaitersSake() throws Exception {
        String name = "handoff-defect:foreign-counter";
        LockClient node = client(Duration.ofSeconds(5));
        Lease held = node.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitQueued(name, 2);
        redis.writeForeignKey(LockKeys.fenceKey(PREFIX, name));

        Boolean released;
        try {
            released = held.releaseAsync().get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(
                    "the holder's release failed with " + e.getCause() + " (lock still in Redis: "
                            + redis.exists(lockKey(name))
                            + "), though release.lua never reads the fencing counter; calls "
                            + gate.calls,
                    e.getCause());
        }
        assertTrue(released, "release()");
        assertFalse(redis.exists(lockKey(name)), "the holder's lock is gone");
        ExecutionException waiterFailure = org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class, () -> waiting.get(5, TimeUnit.SECONDS));
        assertInstanceOf(LockBackendException.class, waiterFailure.getCause());
    }

    /**
     * G9: a newcomer that queues behind its client's waiters without an attempt never learns that
     * Redis is unreachable, and ends its wait with LockTimeoutException ("contended") - or an empty
     * tryAcquire - though Redis was down for the whole of its wait: "contended" and "Redis down" are
     * conflated again.
     *
     * <p>Interleaving: another client holds the lock; W of client A tried, was contended and sleeps
     * until its fallback (the holder's TTL). Redis becomes unreachable. Newcomer N of client A asks
     * with a 500 ms wait: hasWaiters() is true, so it queues behind W without an attempt; W asks
     * nothing meanwhile; at N's deadline lastFailure is null, so onDeadline() reports a timeout.
     * Before the change N made its own attempt, failed transiently, retried, and ended with
     * LockBackendException.
     *
     * <p>Cause: Acquisition.start() (Acquisition.java:115-119) with onDeadline()
     * (Acquisition.java:516-531): a queued newcomer has no evidence either way. Fix: a newcomer that
     * never attempted makes one attempt at its deadline (or when it queues, if the head's last attempt
     * failed), and reports the backend failure if that fails; or the queue shares the head's last
     * transient failure with the waiters behind it.
     */
    @Test
    void shouldReportABackendFailureToANewcomerQueuedBehindLocalWaitersWhileRedisIsDown() throws Exception {
        String name = "handoff-defect:queued-newcomer-outage";
        LockClient node = LockClient.builder(gate)
                .commandTimeout(Duration.ofSeconds(2))
                .listener(events)
                .build();
        client = node;
        other = LockClient.create(redis.newNode());
        Lease heldElsewhere = other.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitQueued(name, 1);

        redis.makeUnavailable();
        try {
            CompletableFuture<Lease> newcomer = node.lock(name, NO_RENEW).acquireAsync(Duration.ofMillis(500));
            ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(
                    ExecutionException.class, () -> newcomer.get(10, TimeUnit.SECONDS));
            assertInstanceOf(
                    LockBackendException.class,
                    failure.getCause(),
                    "G9: Redis was unreachable for the newcomer's whole wait, but it was told " + failure.getCause()
                            + "; script calls while it waited: " + gate.calls);
        } finally {
            redis.makeAvailable();
        }
        waiting.cancel(false);
        heldElsewhere.release();
    }
}
