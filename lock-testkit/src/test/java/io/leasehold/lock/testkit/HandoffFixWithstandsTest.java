package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.testkit.ScriptedHandoffBackend.Send;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the handoff fixes of commit 38c37a0 (HandoffRelease's resend as a unit, the late
 * handoff reply, the yield's unknown outcome) that the code withstands: a second review's evidence,
 * kept so that a later change cannot lose it unnoticed. The client under attack runs on a {@link
 * ScriptedHandoffBackend} over the in-memory store on the manual clock.
 */
class HandoffFixWithstandsTest extends HandoffAttackSupport {

    private static final LockOptions NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();

    final ScriptedHandoffBackend node = new ScriptedHandoffBackend(redis.newNode());

    LockClient scriptedClient(Duration commandTimeout) {
        client = LockClient.builder(node)
                .ticker(clock)
                .commandTimeout(commandTimeout)
                .listener(events)
                .build();
        return client;
    }

    void awaitFirstWaiterQueued(String name, int plainAcquires) {
        Eventually.until(
                "the waiter tried, was contended and subscribed; calls " + node.calls,
                () -> node.plainAcquires.get() >= plainAcquires && redis.subscriberCount(channel(name)) >= 1);
    }

    /**
     * G8: the waiter is cancelled after its handoff ran (granting its owner) and lost its reply,
     * before the resend. Its clean-up waits for the holder's release to settle; the resend (the same
     * handoff) finds the waiter's owner holding the lock and counts it as released; then the
     * clean-up deletes that lock: nothing is left in Redis, and no loss is reported.
     */
    @Test
    void shouldLeaveNoLockWhenTheWaiterIsCancelledAfterTheHandoffRanAndBeforeItsResend() throws Exception {
        String name = "handoff-withstands:cancelled-mid-resend";
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
     * G9 and G8: a handoff refused three times is resent until it runs, 90 ms after the waiter's
     * deadline has passed. The waiter's wait ends at the first resend past its deadline, on the
     * backend failure at hand (its wait is bounded by its deadline and one command timeout); the
     * release goes on alone, and the lock its last send grants to the departed waiter's owner is
     * deleted by the waiter's clean-up once the release has settled: released, no loss, nothing
     * left in Redis. (Before the fix of HandoffFixReviewAttackTest's wait-bound defect, the waiter
     * got that late grant as its lease.)
     */
    @Test
    void shouldEndTheWaitAtItsDeadlineAndCleanUpWhatAResentHandoffGrantsAfterIt() throws Exception {
        String name = "handoff-withstands:resend-past-deadline";
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

    /**
     * G8/G12: the client closes while a handoff that ran (granting the waiter's owner) waits for its
     * resend. The waiter ends with the client's closing, and its clean-up deletes the lock the
     * handoff granted: nothing is left in Redis for a lease time.
     */
    @Test
    void shouldLeaveNoLockWhenTheClientClosesWhileAHandoffThatRanWaitsForItsResend() throws Exception {
        String name = "handoff-withstands:close-mid-resend";
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

    /**
     * G13 on the resend path: the handoff's first send is refused, its resend runs on the engine's
     * timer thread and grants the waiter. The waiter's continuation and the holder's releaseAsync
     * continuation still run on the callback pool, and the listeners on the event thread, never on
     * the timer or the thread that completed the reply.
     */
    @Test
    void shouldRunNoUserCodeOnTheTimerWhenAResentHandoffGrants() throws Exception {
        String name = "handoff-withstands:threads";
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
     * A yield whose reply was lost: the eighth handoff in a row yields (another client waits), its
     * reply is lost, the other client's waiter takes the lock, and the resend finds that waiter's
     * lock. The release counts as released (the yield deleted it: no false loss), and the local
     * waiter goes on and gets the lock once the other client releases it.
     */
    @Test
    void shouldCountALostYieldAsReleasedAndLetTheLocalWaiterGoOn() throws Exception {
        String name = "handoff-withstands:lost-yield";
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
}
