package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.internal.HandoffGateBackend.Gate;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The contended path's local handoff (a release that hands its lock to the next waiter of its client
 * in the same script call, handoff.lua, sent by {@code ReleaseSender}) when something around it
 * fails or changes under it: the handoff's reply is lost, the lock is force-released under a local
 * lease, the handoff runs only after its command timed out, the handoff fails for the waiter's sake
 * alone, Redis goes down while a newcomer queues behind the waiters. In each case no loss is reported
 * that did not happen (G6, G9), no waiter sleeps while the lock is free or already its own (G7), the
 * holder's lock is released whenever a plain release would release it, and a wait ends on the
 * evidence it has (G9). The client under test runs on a {@link HandoffGateBackend} over the
 * in-memory store; each test's comment gives the interleaving and the rule of the code that decides it.
 */
class HandoffFailureTest extends HandoffAttackSupport {

    private static final LockOptions NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();

    /**
     * G6/G9: a release whose handoff ran but whose reply was lost to a connection reset reports no
     * loss that never happened.
     *
     * <p>Interleaving: holder L, waiters W and W2 of one client. L.release() hands off to W: the
     * script deletes L's lock and grants W's owner, but the reply is lost (connection reset). Neither
     * L's release nor W's attempt is settled by that failure. After 20 ms the same handoff is sent
     * again; it finds W's owner holding the lock and answers "acquired, released" (handoff.lua), which
     * settles both: L's release returns true and W gets its lease. W's own release then hands the lock
     * on to W2.
     *
     * <p>Rule: a handoff of unknown outcome is resent as one command with the waiter's attempt, which
     * stays in flight meanwhile ({@code ReleaseSender.HandoffSend}, see {@code Handoff}), so nothing of
     * this client can move the lock on between the lost reply and the resend. (A handoff once let the
     * waiter retry on its own while the release was resent as a plain release: W took the lock and
     * handed it to W2 first, and L's resend found W2's lock and reported onLeaseLost(STOLEN) for a
     * lease released normally.)
     */
    @Test
    void shouldNotReportALossWhenTheResentReleaseOfAFailedHandoffFindsTheLockMovedOn() throws Exception {
        String name = "handoff-failure:false-loss";
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
     * G7: a lock freed by {@link io.leasehold.lock.DistributedLock#forceRelease()} while a lease of
     * the waiter's own client holds it is taken by that client's waiter at once, on the release
     * message, not when the holder's renewal finds the lock gone (a third of the lease) or, without
     * auto-renew, at the end of the holder's validity (30 s here).
     *
     * <p>Interleaving: L (client A, auto-renew off, 30 s) holds; W of client A queues. An operator on
     * another client force-releases the lock (DEL and a release message). L is still held locally:
     * force-release does not tell it. The message reaches A's queue, whose head W asks Redis at once
     * and gets the lock; the manual clock stands still, so no fallback alarm can be what woke it.
     *
     * <p>Rule: while a lease of this client holds the lock, the head asks Redis only on evidence that
     * the lock may be free. A release message is such evidence ({@code Acquisition.releaseSeen} ->
     * {@code AcquisitionMachine.releaseSeen} wakes the head with no local holder counted), and so is a
     * resubscription; the "a local lease holds it" shortcut
     * ({@code DefaultLockClient.localHolderValidityLeft}) applies only to the became-head and fallback
     * wake-ups ({@code Acquisition.wake}). The message of the local lease's own release is published
     * only after that lease left the client's holders, so it never meets the shortcut.
     */
    @Test
    void shouldWakeALocalWaiterWhenTheLockIsForceReleasedUnderItsClientsLease() throws Exception {
        String name = "handoff-failure:force-release";
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
     * G7: a handoff whose command runs only after the waiter's retry (its connection was slow past the
     * command timeout; Jedis runs the retry on another connection) grants the lock to the waiter's
     * owner in Redis without publishing; the waiter acts on that late reply and gets the lock at once,
     * instead of sleeping until its fallback (the releasing holder's TTL, up to a whole lease) while
     * Redis holds the lock for it and every other waiter is kept out.
     *
     * <p>Interleaving: L releases, handing off to W; the handoff's send is delayed. After the command
     * timeout L's release fails (its budget is one command timeout: no time left for a resend) and W
     * hears the TimeoutException as its attempt's and retries after 20 ms with the same owner. W's
     * retry runs first: L's lock is still there, so it is contended and W queues with its fallback at
     * L's PTTL (~30 s). Then the delayed handoff runs: L's owner holds the lock, so it is deleted and
     * taken for W's owner, without a publish. Its reply comes after its command timed out.
     *
     * <p>Rule: a late reply of the round still going that says "granted" makes the waiter ask again
     * now, with the same owner, which gets the same lock ({@code Handoff.onLateReply} ->
     * {@code Acquisition.onLateReply} -> {@code AcquisitionMachine.lateReply}). A late acquire can
     * count on a release message (the lock it took was freed by a publishing release); a late
     * handoff grants silently, so without this the waiter would wait for its fallback.
     */
    @Test
    void shouldNotLeaveAWaiterAsleepWhileRedisHoldsTheLockForItAfterALateHandoff() throws Exception {
        String name = "handoff-failure:late-handoff";
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
     * G9 (and G11): a handoff that fails for the waiter's sake alone does not fail the holder's
     * release: here the name's fencing counter was overwritten by another application, so handoff.lua
     * refuses to grant (as acquire.lua would, for the waiter) before it writes anything, and the
     * holder's lock is still released, since a plain release never needs the counter. The waiter
     * hears the error as its own attempt's (LockBackendException); the holder's release returns true
     * and its lock is gone, rather than the release throwing and the lock staying for the whole lease.
     *
     * <p>Rule: a handoff that fails with a non-transient error (a script error reply) tells the waiter
     * that error and releases the holder's lock by a plain release.lua for the releasing owner
     * ({@code ReleaseSender.HandoffSend}).
     */
    @Test
    void shouldReleaseTheHoldersLockWhenTheHandoffFailsForTheWaitersSake() throws Exception {
        String name = "handoff-failure:foreign-counter";
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
     * G9: a newcomer that queues behind its client's waiters without an attempt, while Redis is
     * unreachable for the whole of its wait, ends with LockBackendException, not with
     * LockTimeoutException ("contended"): "contended" and "Redis down" stay apart.
     *
     * <p>Interleaving: another client holds the lock; W of client A tried, was contended and sleeps
     * until its fallback (the holder's TTL). Redis becomes unreachable. Newcomer N of client A asks
     * with a 500 ms wait: A has waiters for the name, so N queues behind W without an attempt (no
     * barging), and W asks nothing meanwhile. At N's deadline N has no evidence either way; it asks
     * Redis once, the attempt fails, and N ends with the backend failure.
     *
     * <p>Rule: the deadline of a waiter that never asked Redis sends one attempt, and that attempt's
     * reply decides ({@code AcquisitionMachine.deadlinePassed}; its failure past the deadline ends the
     * wait as a backend failure in {@code AcquisitionMachine.failed}).
     */
    @Test
    void shouldReportABackendFailureToANewcomerQueuedBehindLocalWaitersWhileRedisIsDown() throws Exception {
        String name = "handoff-failure:queued-newcomer-outage";
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
