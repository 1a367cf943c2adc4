package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.internal.ScriptedHandoffBackend.Send;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A release that hands its lock to a local waiter (handoff.lua) and fails with an unknown outcome (a
 * refused or reset connection, a reply that never comes) is resent as one command with the waiter's
 * attempt: the same handoff is sent again after a back-off, within the release's budget of one
 * command timeout, while the waiter's attempt stays in flight ({@code ReleaseSender.HandoffSend}).
 * The handoff is idempotent: a resend that finds the waiter's owner holding the lock answers
 * "acquired, released", and one that finds another client's lock after an earlier send yielded reads
 * the yield marker and answers "released"; so the resend's answer tells both sides what happened.
 *
 * <p>These tests prove that the guarantees hold while such a resend is pending, whatever happens
 * around it:
 * <ul>
 *   <li>the waiter is cancelled: its clean-up waits for the release to settle
 *       ({@code Handoff.pending}, {@code AcquireRound.settledFirst}), so the resend cannot find the
 *       lock moved on and report a false loss, and the lock the resend grants the departed waiter is
 *       deleted right after (G8, G9);</li>
 *   <li>the waiter's deadline passes: its wait ends on the failure at hand, within its wait and one
 *       command timeout, and the release goes on alone (G9);</li>
 *   <li>the client closes: nothing is left in Redis (G8, G12);</li>
 *   <li>the handoff may yield: a yield whose reply was lost counts as released, and a loss that the
 *       resend finds when no send yielded is still reported (G9);</li>
 *   <li>the resend runs on the engine's timer: no user code does (G13).</li>
 * </ul>
 * The client under test runs on a {@link ScriptedHandoffBackend}, whose handoff sends fail, vanish or
 * are held as each test scripts them, over the in-memory store on the manual clock.
 */
class HandoffResendTest extends HandoffAttackSupport {

    private static final LockOptions NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();

    final ScriptedHandoffBackend node = new ScriptedHandoffBackend(redis.newNode());

    /** The client under test, on the scripted node, the manual clock and {@code commandTimeout}. */
    LockClient scriptedClient(Duration commandTimeout) {
        client = LockClient.builder(node)
                .ticker(clock)
                .commandTimeout(commandTimeout)
                .listener(events)
                .build();
        return client;
    }

    /** Waits until the client made {@code plainAcquires} attempts and a subscription exists (the first waiter joined). */
    void awaitFirstWaiterQueued(String name, int plainAcquires) {
        Eventually.until(
                "the waiter tried, was contended and subscribed; calls " + node.calls,
                () -> node.plainAcquires.get() >= plainAcquires && redis.subscriberCount(channel(name)) >= 1);
    }

    // ---- G8, G9: the waiter is cancelled while its handoff is resent --------------------------------

    /**
     * G8: a waiter cancelled after its handoff ran (granting its owner) and lost its reply, before the
     * resend, leaves no lock behind, and the holder's release reports no loss.
     *
     * <p>Interleaving: L hands off to W; the send runs (L's lock deleted, W's owner granted) and its
     * reply is lost to a reset; the resend is due in 20 ms. W is cancelled now. The resend finds W's
     * owner holding the lock and answers "acquired, released": L's release returns true. Its grant
     * reaches a waiter that has ended and is released, and W's clean-up, which waited for L's release
     * to settle, deletes the lock too (owner-checked, so harmless twice): nothing is left in Redis.
     *
     * <p>Rule: from the claim on, the clean-up of a round that a handoff targets follows the release
     * that hands it the lock ({@code AcquisitionMachine.claimHandoff} sets
     * {@code AcquireRound.handoffSettled}, completed by {@code Handoff.pending} once the release
     * settles; {@code AcquisitionMachine.end} gives the clean-up {@code AcquireRound.settledFirst}, and
     * {@code ReleaseSender.releaseEventuallyAfter} sends it after that); a grant that reaches an ended
     * waiter is released ({@code AcquisitionMachine.granted}).
     */
    @Test
    void shouldLeaveNoLockWhenTheWaiterIsCancelledAfterTheHandoffRanAndBeforeItsResend() throws Exception {
        String name = "handoff-resend:cancelled-before-resend";
        LockClient a = scriptedClient(Duration.ofSeconds(5));
        Lease held = a.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = a.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitFirstWaiterQueued(name, 2);
        node.nextHandoffs(Send.FAIL_AFTER_RUN);

        CompletableFuture<Boolean> released = held.releaseAsync();
        Eventually.until("the handoff ran (its reply lost)", () -> node.handoffOutcomes.size() >= 1);
        assertTrue(waiting.cancel(false));
        advanceUntil("the holder's release settled", Duration.ofMillis(5), Duration.ofMillis(200), released::isDone);
        Eventually.until(
                "the waiter's clean-up deleted the lock its handoff granted", () -> !redis.exists(lockKey(name)));

        assertTrue(released.get(5, TimeUnit.SECONDS), "release(); events " + events + ", calls " + node.calls);
        assertFalse(events.lostReported(held.fencingToken()), "no loss: " + events);
        assertFalse(redis.exists(lockKey(name)), "nothing left behind");
    }

    /**
     * G9, conversely (a lease released normally is never reported lost): a waiter cancelled while its
     * handoff waits for its resend, with another client's waiter ready to take the lock the moment it
     * is free, causes no false loss.
     *
     * <p>Interleaving: L (client A) holds; W (client A) and X (client B) wait. L's handoff to W runs
     * (L's lock deleted, W's owner granted) and its reply is lost to a reset; the resend is due in
     * 20 ms. W is cancelled. Its clean-up waits for L's release: the resend finds W's owner holding the
     * lock and answers released, so L's release returns true and no loss is heard. Only then does the
     * clean-up delete W's lock and publish, and X takes it.
     *
     * <p>Rule: the clean-up of a round that a handoff targets follows that handoff's release
     * ({@code AcquireRound.settledFirst}, see {@code Handoff.pending}); so while the release is
     * pending nothing of this client moves the lock on, and a resend that finds another owner with no
     * yield marker of ours is a real loss ({@code ReleaseSender.HandoffSend}). (A handoff once let the
     * waiter's clean-up release its owner at once: X took the freed lock, the resend found X's lock,
     * and L's release returned false with onLeaseLost(STOLEN) for a lock its own handoff had deleted.)
     */
    @Test
    void shouldNotReportALossWhenTheWaiterIsCancelledWhileTheHandoffIsResentAndAnotherClientTakesTheLock()
            throws Exception {
        String name = "handoff-resend:cancelled-other-client-waits";
        LockClient a = scriptedClient(Duration.ofSeconds(5));
        Lease held = a.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = a.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitFirstWaiterQueued(name, 2);
        CompletableFuture<Lease> elsewhere = other().lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        Eventually.until("the other client's waiter subscribed", () -> redis.subscriberCount(channel(name)) >= 2);
        node.nextHandoffs(Send.FAIL_AFTER_RUN);

        CompletableFuture<Boolean> released = held.releaseAsync();
        Eventually.until("the handoff ran (its reply lost)", () -> node.handoffOutcomes.size() >= 1);
        assertFalse(released.isDone(), "the release waits on the handoff's resend");
        assertTrue(waiting.cancel(false), "the waiter gives up while the handoff is to be resent");
        // The waiter's clean-up waits for the holder's release to settle: the resend runs first.
        advanceUntil("the holder's release settled", Duration.ofMillis(5), Duration.ofMillis(200), released::isDone);
        Lease othersLease = elsewhere.get(5, TimeUnit.SECONDS); // the waiter's clean-up freed the lock and published

        boolean deleted = released.get(5, TimeUnit.SECONDS);
        assertTrue(
                deleted && !events.lostReported(held.fencingToken()),
                "the holder's lock was deleted by its own handoff, yet release() returned " + deleted
                        + " and the listeners heard " + events + " (a false loss); handoffs " + node.handoffOutcomes
                        + "; calls " + node.calls);
        othersLease.release();
    }

    /**
     * G9, conversely: a waiter cancelled while the handoff's resend is on its way (a slow network;
     * with Jedis a clean-up on another connection could overtake it) causes no false loss, and
     * nothing of the waiter's owner is left.
     *
     * <p>Interleaving: L hands off to W; the first send runs (W's owner holds the lock) and its reply
     * is lost; 20 ms later the resend goes out and is held on its way. W is cancelled now; its
     * clean-up waits for L's release to settle. The resend arrives: it finds W's owner holding the
     * lock and answers released, so L's release returns true; then the grant that reached an ended
     * waiter is released and W's clean-up runs: the lock is gone.
     *
     * <p>Rule: the clean-up of a round that a handoff targets follows that handoff's release
     * ({@code AcquireRound.settledFirst}). A second rule guards the same outcome: had the clean-up run
     * first, the resend would have found the lock absent, taken it for W's owner once more and
     * answered "absent"; after an earlier send of unknown outcome, absent counts as deleted
     * ({@code ReleaseReply.answered}), since that send may itself have deleted the lock.
     */
    @Test
    void shouldNotReportALossWhenTheWaiterIsCancelledWhileTheResentHandoffIsOnItsWay() throws Exception {
        String name = "handoff-resend:cancelled-resend-on-its-way";
        LockClient a = scriptedClient(Duration.ofSeconds(5));
        Lease held = a.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = a.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitFirstWaiterQueued(name, 2);
        node.nextHandoffs(Send.FAIL_AFTER_RUN, Send.HOLD);

        CompletableFuture<Boolean> released = held.releaseAsync();
        Eventually.until("the handoff ran (its reply lost)", () -> node.handoffOutcomes.size() >= 1);
        advanceUntil("the resend is on its way", Duration.ofMillis(5), Duration.ofMillis(100), node::holding);
        assertTrue(waiting.cancel(false), "the waiter gives up while the resend is on its way");
        // The waiter's clean-up waits for the holder's release: the lock the first send granted stays until the resend.
        node.letGo();

        Eventually.until("the holder's release settled", released::isDone);
        boolean deleted = released.get(5, TimeUnit.SECONDS);
        assertTrue(
                deleted,
                "the holder's lock was deleted by its own handoff, yet release() returned " + deleted
                        + " (a false loss; listeners heard " + events + "); handoffs " + node.handoffOutcomes
                        + "; calls " + node.calls);
        Eventually.until("nothing of the waiter's owner is left", () -> !redis.exists(lockKey(name)));
    }

    // ---- G9: the waiter's deadline passes while its handoff is resent -------------------------------

    /**
     * G9 and the wait's bound (DistributedLock's class doc: "a call returns within its wait plus at
     * most one command timeout"): a waiter whose handoff is being resent ends within that bound.
     *
     * <p>Interleaving (command timeout 1 s, wait 2 s): W queues behind a lease L of its own client.
     * At 1.9 s into W's wait L releases and hands off to W; Redis is restarting: the handoff is
     * refused five times (resent after 20, 40, 80, 160 and 320 ms, all within L's budget of one
     * command timeout), and the sixth send never gets an answer. W's attempt stays in flight while the
     * handoff is resent, and the deadline never decides while an attempt is in flight
     * ({@code AcquisitionMachine.deadlinePassed}); yet W ends at the first resend past its deadline, on
     * the refusal at hand, long before the sixth send's command timeout, while L's release goes on
     * resending alone.
     *
     * <p>Rule: a resend of a handoff whose waiter's deadline has passed first tells the waiter the
     * last failure ({@code ReleaseSender.HandoffSend}, asking {@code Handoff.deadlinePassed}), and that
     * failure past the deadline ends the wait ({@code AcquisitionMachine.failed}). (A handoff once kept
     * its waiter in flight for the whole of the release's budget, and the wait ended only with the
     * sixth send's command timeout, 1.52 s past its deadline.)
     */
    @Test
    void shouldEndTheWaitWithinItsWaitPlusOneCommandTimeoutWhileItsHandoffIsResent() throws Exception {
        String name = "handoff-resend:wait-bound";
        Duration commandTimeout = Duration.ofSeconds(1);
        Duration wait = Duration.ofSeconds(2);
        LockClient a = scriptedClient(commandTimeout);
        Lease held = a.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        long startedAt = clock.read();
        CompletableFuture<Lease> waiting = a.lock(name, NO_RENEW).acquireAsync(wait);
        awaitFirstWaiterQueued(name, 2);
        advanceBy(Duration.ofMillis(1900), Duration.ofMillis(100));
        assertFalse(waiting.isDone(), "still waiting at 1.9 s");
        node.nextHandoffs(
                Send.FAIL_BEFORE_RUN,
                Send.FAIL_BEFORE_RUN,
                Send.FAIL_BEFORE_RUN,
                Send.FAIL_BEFORE_RUN,
                Send.FAIL_BEFORE_RUN,
                Send.NEVER_ARRIVES);

        held.releaseAsync();
        long bound = wait.plus(commandTimeout).toNanos();
        long endedAt = advanceUntilDone(waiting, startedAt, bound + TimeUnit.SECONDS.toNanos(2));
        assertTrue(
                endedAt - startedAt <= bound + TimeUnit.MILLISECONDS.toNanos(50),
                "the wait of " + wait + " ended " + Duration.ofNanos(endedAt - startedAt) + " after it began (with "
                        + waiting.handle((l, e) ->
                                        e == null ? "a lease" : e.getCause().toString())
                                .join()
                        + "), past its wait plus one command timeout (" + Duration.ofNanos(bound) + "); handoff sends: "
                        + node.handoffOutcomes);
    }

    /**
     * G9 and G8: the wait ends at its deadline while a handoff to it is being resent, and the lock a
     * later send grants to the departed waiter's owner is cleaned up.
     *
     * <p>Interleaving (command timeout 1 s, wait 1 s): at 0.95 s L releases, handing off to W; the
     * handoff is refused three times (resent after 20, 40 and 80 ms), and the fourth send, 90 ms past
     * W's deadline, runs. At the first resend past the deadline W hears the refusal and its wait ends
     * with LockBackendException; its clean-up waits for L's release. The fourth send releases L's lock
     * and grants W's owner: L's release returns true, with no loss. That grant reaches an ended waiter
     * and is released, and W's clean-up, now that the release has settled, deletes it too: nothing is
     * left in Redis.
     *
     * <p>Rule: once the waiter's deadline has passed, {@code ReleaseSender.HandoffSend} tells it the
     * last failure and resends the release alone, within the release's budget; the resend still names
     * the departed waiter's owner, and what it grants is deleted by the clean-up that follows the
     * release ({@code AcquireRound.settledFirst}).
     */
    @Test
    void shouldEndTheWaitAtItsDeadlineAndCleanUpWhatAResentHandoffGrantsAfterIt() throws Exception {
        String name = "handoff-resend:past-deadline";
        LockClient a = scriptedClient(Duration.ofSeconds(1));
        Lease held = a.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = a.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(1));
        awaitFirstWaiterQueued(name, 2);
        advanceBy(Duration.ofMillis(950), Duration.ofMillis(50));
        assertFalse(waiting.isDone(), "still waiting at 0.95 s");
        node.nextHandoffs(Send.FAIL_BEFORE_RUN, Send.FAIL_BEFORE_RUN, Send.FAIL_BEFORE_RUN);

        CompletableFuture<Boolean> released = held.releaseAsync();
        advanceUntil("the waiter was answered", Duration.ofMillis(5), Duration.ofMillis(300), waiting::isDone);
        java.util.concurrent.ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> waiting.get(5, TimeUnit.SECONDS));
        org.junit.jupiter.api.Assertions.assertInstanceOf(
                io.leasehold.lock.LockBackendException.class,
                failure.getCause(),
                "G9: the backend refused every send until the deadline");
        advanceUntil("the holder's release settled", Duration.ofMillis(5), Duration.ofMillis(300), released::isDone);

        assertTrue(
                released.get(5, TimeUnit.SECONDS),
                "release(); events " + events + "; handoffs " + node.handoffOutcomes);
        assertEquals(4, node.handoffs.get(), "three refused sends and the one that ran: " + node.handoffOutcomes);
        assertFalse(events.lostReported(held.fencingToken()), "no false loss: " + events);
        Eventually.until(
                "the waiter's clean-up deleted what the late send granted", () -> !redis.exists(lockKey(name)));
    }

    // ---- G8, G12: the client closes while a handoff waits for its resend ----------------------------

    /**
     * G8/G12: the client closes while a handoff that ran (granting the waiter's owner) waits for its
     * resend: the waiter ends with the close, and the lock the handoff granted its owner is deleted,
     * so nothing is left in Redis for a lease time.
     *
     * <p>Interleaving: L hands off to W; the send runs and its reply is lost; the resend waits on the
     * engine's timer, and the manual clock stands still, so it never runs. close() ends W first (it
     * hears IllegalStateException), and W's clean-up waits for L's release to settle. close() waits
     * for that release for most of its timeout; then it sends the clean-ups still waiting for what they
     * follow, which deletes W's lock; once the timer has stopped, L's release ends with the failure that
     * made it wait.
     *
     * <p>Rule: {@code DefaultLockClient.close} sends deferred clean-ups at once near the end of its
     * timeout ({@code ReleaseSender.sendDeferredCleanUpsNow}), rather than leave their locks for a
     * lease time, and ends resends that wait on the stopped timer
     * ({@code ReleaseSender.failWaitingResends}), so that no release future waits forever.
     */
    @Test
    void shouldLeaveNoLockWhenTheClientClosesWhileAHandoffThatRanWaitsForItsResend() throws Exception {
        String name = "handoff-resend:close";
        LockClient a = scriptedClient(Duration.ofSeconds(5));
        Lease held = a.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = a.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitFirstWaiterQueued(name, 2);
        node.nextHandoffs(Send.FAIL_AFTER_RUN);

        CompletableFuture<Boolean> released = held.releaseAsync();
        Eventually.until("the handoff ran (its reply lost)", () -> node.handoffOutcomes.size() >= 1);
        a.close();

        ExecutionException waiterEnd = assertThrows(ExecutionException.class, () -> waiting.get(5, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, waiterEnd.getCause(), "the waiter hears of the close");
        Eventually.until("the holder's release settled", released::isDone);
        assertFalse(
                redis.exists(lockKey(name)),
                "the lock the handoff granted to the closed waiter is gone: " + redis.get(lockKey(name)) + "; calls "
                        + node.calls);
    }

    // ---- G9: a handoff that may yield, resent -------------------------------------------------------

    /**
     * G9 ("a release that finds the lock no longer held for you is reported, never hidden"): a release
     * whose handoff may yield, failed before it ran, and whose resend finds another client's lock,
     * reports the loss.
     *
     * <p>Interleaving: eight local waiters take the lock by seven handoffs in a row, so the release of
     * the seventh one's lease is the eighth handoff in a row, which may yield
     * ({@code WaitQueues.HANDOFFS_BEFORE_YIELD}).
     * Before that release, the lock is lost under the holder without any message (a failover to a
     * replica that missed it, or a flush) and another client takes it. The holder releases: the
     * handoff fails before it reaches Redis (connection refused). The resend 20 ms later finds the
     * other client's lock and no yield marker naming the releasing owner, and answers -1: release()
     * returns false and the listeners hear the loss.
     *
     * <p>Rule: a handoff that yields writes a yield marker naming the releasing owner, and a resend
     * that finds another owner answers "released by an earlier yield" only if that marker names it
     * (handoff.lua); so a handoff's -1 after a send of unknown outcome stays a loss
     * ({@code ReleaseReply.answered}, the handoff's marker telling a yield apart), and the lease ends
     * lost ({@code LeaseLifecycle.releaseAnswered}). (A handoff once counted any -1 after a failed send
     * that might have yielded as released, and so hid this loss.)
     */
    @Test
    void shouldReportTheLossWhenAYieldingHandoffFailedBeforeItRanAndAnotherClientHoldsTheLock() throws Exception {
        String name = "handoff-resend:yield-never-ran";
        LockClient a = scriptedClient(Duration.ofSeconds(5));
        Lease held = a.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        waiters.add(a.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60)));
        awaitFirstWaiterQueued(name, 2);
        for (int i = 2; i <= 8; i++) {
            waiters.add(a.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60))); // queue behind, synchronously
        }
        for (int i = 0; i < 7; i++) {
            assertTrue(held.release(), "handoff " + (i + 1));
            held = waiters.get(i).get(5, TimeUnit.SECONDS);
        }
        assertTrue(
                node.handoffs.get() == 7 && node.plainAcquires.get() == 2,
                "seven handoffs in a row, no other attempt: " + node.calls);
        // Lost under the holder without a message, then taken by another client (acquire publishes nothing).
        assertTrue(redis.deleteKey(lockKey(name)));
        Lease thief = other().lock(name, NO_RENEW).tryAcquire().orElseThrow();
        node.nextHandoffs(Send.FAIL_BEFORE_RUN);

        CompletableFuture<Boolean> released = held.releaseAsync();
        advanceUntil("the holder's release settled", Duration.ofMillis(5), Duration.ofMillis(200), released::isDone);
        String lastHandoff = node.calls.stream()
                .filter(c -> c.startsWith("handoff") && c.endsWith(", 1]"))
                .reduce((x, y) -> y)
                .orElse("none");
        boolean deleted = released.get(5, TimeUnit.SECONDS);
        long heldToken = held.fencingToken();
        if (!deleted) {
            // listeners hear on their own thread, after release() has its outcome
            Eventually.until(() -> "the listeners heard of the loss; " + events, () -> events.lostReported(heldToken));
        }
        assertTrue(
                !deleted && events.lostReported(held.fencingToken()),
                "the holder's lock was another client's (token " + thief.fencingToken() + ") when its release ran, and"
                        + " the handoff that might yield (" + lastHandoff + ") never ran before its resend, yet"
                        + " release() returned " + deleted + " and the listeners heard " + events
                        + " (the loss hidden);"
                        + " handoffs " + node.handoffOutcomes);
        waiters.get(7).cancel(false);
        thief.release();
    }

    /**
     * G9, conversely, and G7: a yield whose reply was lost counts as released, and the local waiter it
     * passed over goes on and gets the lock in its turn.
     *
     * <p>Interleaving: seven handoffs in a row as above, with another client's waiter subscribed as
     * well; the eighth handoff yields (deletes the lock, writes the yield marker, publishes the yield's
     * message) and its reply is lost. The other client's waiter, woken by that message, takes the
     * lock. The resend finds that lock and the marker naming the releasing owner, and answers
     * "released by an earlier yield": release() returns true, with no loss. The local waiter hears the
     * resend's reply as contended, waits while the other client holds the lock, and gets it on that
     * client's release message (the clock does not move).
     *
     * <p>Rule: {@code ReleaseSender.HandoffSend} counts a resend's
     * {@code AcquireReply.RELEASED_BY_EARLIER_YIELD} as deleted.
     */
    @Test
    void shouldCountALostYieldAsReleasedAndLetTheLocalWaiterGoOn() throws Exception {
        String name = "handoff-resend:lost-yield";
        LockClient a = scriptedClient(Duration.ofSeconds(5));
        Lease held = a.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        waiters.add(a.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60)));
        awaitFirstWaiterQueued(name, 2);
        for (int i = 2; i <= 8; i++) {
            waiters.add(a.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60)));
        }
        CompletableFuture<Lease> elsewhere = other().lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        Eventually.until("the other client's waiter subscribed", () -> redis.subscriberCount(channel(name)) >= 2);
        for (int i = 0; i < 7; i++) {
            assertTrue(held.release(), "handoff " + (i + 1));
            held = waiters.get(i).get(5, TimeUnit.SECONDS);
        }
        node.nextHandoffs(Send.FAIL_AFTER_RUN);

        CompletableFuture<Boolean> released = held.releaseAsync();
        Lease othersLease = elsewhere.get(5, TimeUnit.SECONDS); // woken by the yield's release message
        advanceUntil("the holder's release settled", Duration.ofMillis(5), Duration.ofMillis(200), released::isDone);
        assertTrue(
                released.get(5, TimeUnit.SECONDS),
                "the yield released the lock; events " + events + "; handoffs " + node.handoffOutcomes);
        assertFalse(events.lostReported(held.fencingToken()), "no false loss: " + events);
        assertTrue(
                node.handoffOutcomes.get(node.handoffOutcomes.size() - 2).contains("[0, "),
                "the eighth handoff yielded: " + node.handoffOutcomes);

        assertFalse(waiters.get(7).isDone(), "the local waiter waits while the other client holds");
        assertTrue(othersLease.release());
        Lease last = waiters.get(7).get(5, TimeUnit.SECONDS); // woken by the release message: no clock move
        assertTrue(last.fencingToken() > othersLease.fencingToken());
        last.release();
    }

    // ---- G13: the resend runs on the timer, user code never does ------------------------------------

    /**
     * G13 on the resend path: the handoff's first send is refused, and its resend, run on the engine's
     * timer thread after the back-off, grants the waiter. The waiter's continuation and the holder's
     * releaseAsync continuation still run on the callback pool, and the listeners on the event thread,
     * never on the timer or the thread that completed the reply.
     *
     * <p>Rule: an asynchronous waiter's lease is handed out through {@code Engine.runCallback} (see
     * {@code Acquisition}), {@code releaseAsync} completes through {@code Engine.toCaller}, and the
     * listeners are called on the client's event thread ({@code Listeners}, {@code EventQueue}).
     */
    @Test
    void shouldRunNoUserCodeOnTheTimerWhenAResentHandoffGrants() throws Exception {
        String name = "handoff-resend:threads";
        LockClient a = scriptedClient(Duration.ofSeconds(5));
        Lease held = a.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<String> waiterThread = a.lock(name, NO_RENEW)
                .acquireAsync(Duration.ofSeconds(60))
                .thenApply(lease -> {
                    lease.release();
                    return Thread.currentThread().getName();
                });
        awaitFirstWaiterQueued(name, 2);
        node.nextHandoffs(Send.FAIL_BEFORE_RUN);

        CompletableFuture<String> releaseThread =
                held.releaseAsync().thenApply(done -> Thread.currentThread().getName());
        advanceUntil(
                "the resend granted the waiter", Duration.ofMillis(5), Duration.ofMillis(100), waiterThread::isDone);
        for (String thread : List.of(releaseThread.get(5, TimeUnit.SECONDS), waiterThread.get(5, TimeUnit.SECONDS))) {
            assertTrue(thread.startsWith("leasehold-callback"), "a user continuation ran on " + thread);
        }
        assertEquals(2, node.handoffs.get(), "the refused send and its resend: " + node.handoffOutcomes);
        Eventually.until(
                "the listeners heard both releases",
                () -> events.events.stream()
                                .filter(e -> e.startsWith("released"))
                                .count()
                        == 2);
        assertTrue(
                events.threads.stream().allMatch(t -> t.startsWith("leasehold-events")),
                "listeners ran on " + events.threads);
    }

    /**
     * Moves the clock on in 10 ms steps until {@code future} is done or {@code max} has passed since
     * {@code startedAt}; returns the clock's reading when it was first seen done (fails if never).
     */
    private long advanceUntilDone(CompletableFuture<?> future, long startedAt, long max) throws InterruptedException {
        while (!future.isDone() && clock.read() - startedAt < max) {
            clock.advance(Duration.ofMillis(10));
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(30);
            while (!future.isDone() && System.nanoTime() - until < 0) {
                Thread.sleep(1); // the engine's timer runs what became due within a millisecond or so
            }
        }
        long at = clock.read();
        assertTrue(future.isDone(), "not done " + Duration.ofNanos(max) + " after it began; calls " + node.calls);
        return at;
    }
}
