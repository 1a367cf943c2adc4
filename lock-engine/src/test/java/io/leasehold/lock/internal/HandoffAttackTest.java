package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockInterruptedException;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.internal.HandoffGateBackend.Gate;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contended path's local handoff keeps the guarantees when it is attacked. A release hands its
 * lock to the next waiter of its client in the same script call (handoff.lua, sent by
 * {@code ReleaseSender} as that waiter's attempt in flight, see {@code Handoff}); every
 * {@code WaitQueues.HANDOFFS_BEFORE_YIELD}th handoff in a row may yield the lock to other clients'
 * waiters instead. The tests prove that every handoff gives a fresh owner and a higher fencing token while
 * stale leases touch nothing (G2, G3); that a waiter ending at any moment of a handoff (cancelled,
 * timed out, interrupted, its client closed) leaves no lock behind (G8); that a releasing lease lost
 * at the moment it hands off is reported, and another holder's lock left alone (G6, G1, G2); that a
 * handoff racing the waiter's own attempt still gets it the lock at once, that the waiters go on in
 * first-in first-out order after a yield nobody takes, and that waiters behind a lease of their own
 * client never poll Redis and leave no subscription behind (G7); that no user code runs on the
 * store's or the engine's threads (G13); and that close() stays bounded in the middle of handoffs
 * (G12). The handoff's send or reply is held, failed or raced through a
 * {@link HandoffGateBackend}, over the in-memory store on a manual clock.
 */
class HandoffAttackTest extends HandoffAttackSupport {

    private static final LockOptions NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();

    // ---- G2, G3: fresh owner, higher token, stale leases touch nothing --------------------------

    /**
     * Twelve local waiters get the lock one from the other by handoffs (the 8th with the yield flag,
     * which grants since nobody else subscribes): each with an owner never seen before and a token
     * above the previous one, none by an attempt of its own; the stale leases' release and extend
     * leave the new holder's lock as it is; the watchdog renews only the lease that holds.
     */
    @Test
    void shouldGiveEveryHandoffAFreshOwnerAndAHigherTokenWhileStaleLeasesTouchNothing() throws Exception {
        String name = "handoff-attack:chain";
        LockClient node = client(Duration.ofSeconds(5));
        Lease held = node.lock(name).acquire(Duration.ofSeconds(5));
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            waiters.add(node.lock(name).acquireAsync(Duration.ofSeconds(120)));
            if (i == 0) {
                awaitQueued(name, 2);
            }
        }
        int attemptsBefore = gate.plainAcquires.get();
        Set<String> owners = new HashSet<>();
        owners.add(holderOwner(name));
        Lease previous = held;
        assertTrue(held.release(), "the holder's release");
        for (int i = 0; i < waiters.size(); i++) {
            Lease next = waiters.get(i).get(10, TimeUnit.SECONDS);
            String owner = holderOwner(name);
            String value = redis.get(lockKey(name)).orElseThrow();
            assertTrue(owners.add(owner), "handoff " + (i + 1) + " granted an owner seen before: " + owner);
            assertTrue(
                    next.fencingToken() > previous.fencingToken(),
                    "handoff " + (i + 1) + ": token " + next.fencingToken() + " after " + previous.fencingToken());
            assertEquals(
                    next.fencingToken(), node.lock(name).inspect().orElseThrow().fencingToken(), "inspect()");
            Lease stale = previous;
            assertFalse(stale.release(), "release() of the stale lease");
            assertThrows(
                    IllegalStateException.class,
                    () -> stale.extend(Duration.ofMinutes(1)),
                    "extend() of the stale lease");
            assertEquals(
                    value,
                    redis.get(lockKey(name)).orElseThrow(),
                    "the new holder's lock after the stale lease's calls");
            if (i == 5) {
                int callsBefore = gate.calls.size();
                advanceUntil(
                        "a renewal round",
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(15),
                        () -> gate.calls.stream().skip(callsBefore).anyMatch(c -> c.startsWith("renew")));
                for (String call : gate.calls.subList(callsBefore, gate.calls.size())) {
                    if (call.startsWith("renew")) {
                        assertTrue(call.contains(owner), "the renewal renews the holder: " + call);
                        for (String old : owners) {
                            assertTrue(old.equals(owner) || !call.contains(old), "a stale owner was renewed: " + call);
                        }
                    }
                }
            }
            assertTrue(next.release(), "release() of lease " + (i + 1));
            previous = next;
        }
        assertFalse(redis.exists(lockKey(name)), "the lock after the last release");
        assertEquals(attemptsBefore, gate.plainAcquires.get(), "attempts of the waiters' own: " + gate.calls);
        assertEquals(12, gate.handoffs.get(), "handoffs");
        assertEquals(1, gate.releases.get(), "plain releases (only the last lease had nobody to hand to)");
        assertTrue(gate.lastHandoffArgs.get().size() == 7, "handoff args " + gate.lastHandoffArgs.get());
    }

    // ---- G8: the waiter ends at every moment of a handoff --------------------------------------

    /** The first waiter's wait in {@link #shouldLeaveNoLockOfAWaiterThatEndsAtAnyMomentOfAHandoff}: below the 5 s command timeout. */
    private static final Duration WAIT = Duration.ofSeconds(2);

    /** When, during the handoff to the first waiter, it ends. */
    enum Moment {
        BEFORE_CLAIM,
        BETWEEN_CLAIM_AND_SEND,
        WHILE_SCRIPT_RUNS,
        DURING_HAND_OUT
    }

    /** How it ends. */
    enum Ending {
        CANCEL,
        TIMEOUT,
        INTERRUPT,
        CLOSE
    }

    static Stream<Arguments> momentsAndEndings() {
        List<Arguments> cases = new ArrayList<>();
        for (Moment moment : Moment.values()) {
            for (Ending ending : Ending.values()) {
                if (ending == Ending.INTERRUPT && (moment == Moment.BEFORE_CLAIM || moment == Moment.DURING_HAND_OUT)) {
                    continue; // a blocking caller is handed its lease on the reply's thread: no separate hand-out
                    // moment
                }
                if (ending == Ending.CLOSE && moment == Moment.BETWEEN_CLAIM_AND_SEND) {
                    continue; // the holder's own release is then sent after close(): a release racing close, not a
                    // handoff matter
                }
                cases.add(Arguments.of(moment, ending));
            }
        }
        return cases.stream();
    }

    /**
     * The first waiter is claimed by the holder's release and then cancelled, timed out, interrupted
     * or closed: before the claim, between the claim and the send, while the script runs (reply
     * held), or after the reply during its hand-out (callback executor paused). Afterwards no lock of
     * its owner is left, nobody renews its owner, the next waiter gets the lock with a higher token,
     * and (on close) nothing stays subscribed. A timeout while the handoff is in flight lets the reply
     * decide: the waiter may then get a valid lease, which must be the lock's holder.
     */
    @ParameterizedTest(name = "{1} {0}")
    @MethodSource("momentsAndEndings")
    void shouldLeaveNoLockOfAWaiterThatEndsAtAnyMomentOfAHandoff(Moment moment, Ending ending) throws Exception {
        String name = "handoff-attack:end-" + moment + "-" + ending;
        try (GateExecutor callbacks = new GateExecutor("handoff-attack-cb", 2)) {
            LockClient node = LockClient.builder(gate)
                    .ticker(clock)
                    .commandTimeout(Duration.ofSeconds(5))
                    .closeTimeout(Duration.ofSeconds(5))
                    .callbackExecutor(callbacks)
                    .listener(events)
                    .build();
            client = node;
            Lease held = node.lock(name).acquire(Duration.ofSeconds(5));
            AtomicReference<Throwable> blockingOutcome = new AtomicReference<>();
            AtomicReference<Lease> blockingLease = new AtomicReference<>();
            Thread blocking = null;
            CompletableFuture<Lease> first;
            if (ending == Ending.INTERRUPT) {
                CompletableFuture<Lease> done = new CompletableFuture<>();
                blocking = new Thread(
                        () -> {
                            try {
                                Lease lease = node.lock(name).acquire(WAIT);
                                blockingLease.set(lease);
                                done.complete(lease);
                            } catch (Throwable t) {
                                blockingOutcome.set(t);
                                done.completeExceptionally(t);
                            }
                        },
                        "handoff-attack-blocking-waiter");
                blocking.start();
                first = done;
            } else {
                first = node.lock(name).acquireAsync(WAIT);
            }
            awaitQueued(name, 2);
            CompletableFuture<Lease> second =
                    ending == Ending.CLOSE ? null : node.lock(name).acquireAsync(Duration.ofSeconds(60));
            String firstOwner = gate.calls.get(1).substring("acquire [".length(), "acquire [".length() + 32);

            Runnable end = endingOf(ending, first, blocking, node);
            CompletableFuture<Boolean> released;
            switch (moment) {
                case BEFORE_CLAIM:
                    end.run();
                    Eventually.until("the waiter ended", first::isDone);
                    released = held.releaseAsync();
                    break;
                case BETWEEN_CLAIM_AND_SEND:
                case WHILE_SCRIPT_RUNS:
                    gate.gateNextHandoff(moment == Moment.BETWEEN_CLAIM_AND_SEND ? Gate.HOLD_SEND : Gate.HOLD_REPLY);
                    released = held.releaseAsync();
                    Eventually.until("the handoff is held", gate::holding);
                    end.run();
                    if (ending == Ending.TIMEOUT) {
                        // the handoff is in flight: the deadline waits for its reply, which decides
                        assertFalse(first.isDone(), "a deadline never decides while an attempt is in flight");
                    }
                    gate.letGo();
                    break;
                default:
                    callbacks.pause();
                    released = held.releaseAsync();
                    Eventually.until(
                            "the handoff's reply reached the hand-out",
                            () -> gate.handoffReplies.size() == 1 && callbacks.parkedCount() >= 1);
                    end.run();
                    callbacks.resume();
            }
            if (ending != Ending.CLOSE) {
                assertTrue(released.get(10, TimeUnit.SECONDS), "the holder's release");
            }

            // The waiter ended (or, after a timeout whose reply decided, holds a valid lease)
            Lease firstLease = outcome(first, ending, blockingOutcome);
            if (ending == Ending.INTERRUPT && blocking != null) {
                blocking.join(10_000);
            }
            if (firstLease != null) {
                assertEquals(
                        Optional.of(firstLease.fencingToken()),
                        node.lock(name).inspect().map(i -> i.fencingToken()),
                        "a waiter handed a lease after its deadline holds the lock");
                assertTrue(firstLease.release());
            }
            // ... no lock of its owner is left, and the next waiter gets the lock
            if (second != null) {
                Lease next = second.get(10, TimeUnit.SECONDS);
                assertTrue(next.fencingToken() > held.fencingToken(), "the next waiter's token");
                assertNotEquals(firstOwner, holderOwner(name), "the lock's owner");
                int callsBefore = gate.calls.size();
                advanceUntil(
                        "a renewal round",
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(15),
                        () -> gate.calls.stream().skip(callsBefore).anyMatch(c -> c.startsWith("renew")));
                assertTrue(
                        gate.calls.stream()
                                .skip(callsBefore)
                                .noneMatch(c -> c.startsWith("renew") && c.contains(firstOwner)),
                        "the ended waiter's owner is renewed: " + gate.calls);
                assertTrue(next.release());
            } else {
                Eventually.until(
                        "no lock and no subscription after close; key " + redis.get(lockKey(name)),
                        () -> !redis.exists(lockKey(name)) && redis.subscriberCount(channel(name)) == 0);
            }
            assertFalse(
                    redis.exists(lockKey(name)),
                    "a lock is left behind: " + redis.get(lockKey(name)) + "; calls " + gate.calls);
        }
    }

    private Runnable endingOf(Ending ending, CompletableFuture<Lease> first, Thread blocking, LockClient node) {
        switch (ending) {
            case CANCEL:
                return () -> first.cancel(false);
            case TIMEOUT:
                // past the waiter's wait, below the command timeout (a handoff in flight stays in flight)
                return () -> clock.advance(WAIT.plusMillis(500));
            case INTERRUPT:
                return blocking::interrupt;
            default:
                return () -> {
                    long start = System.nanoTime();
                    node.close();
                    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    assertTrue(tookMs < 8_000, "close() took " + tookMs + " ms with a 5 s close timeout");
                };
        }
    }

    private static Lease outcome(
            CompletableFuture<Lease> first, Ending ending, AtomicReference<Throwable> blockingOutcome)
            throws Exception {
        try {
            Lease lease = first.get(10, TimeUnit.SECONDS);
            assertEquals(Ending.TIMEOUT, ending, "only a timeout whose in-flight reply decides may hand a lease out");
            assertTrue(lease.isValid(), "a lease handed out is valid: " + lease);
            return lease;
        } catch (CancellationException e) {
            assertEquals(Ending.CANCEL, ending);
            return null;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            switch (ending) {
                case TIMEOUT:
                    assertInstanceOf(LockTimeoutException.class, cause);
                    break;
                case INTERRUPT:
                    assertInstanceOf(LockInterruptedException.class, cause);
                    break;
                case CLOSE:
                    assertInstanceOf(IllegalStateException.class, cause);
                    break;
                default:
                    throw new AssertionError("unexpected outcome " + cause, cause);
            }
            return null;
        }
    }

    // ---- G6, G1, G2: the releasing lease is lost at the moment it hands off --------------------

    /**
     * The holder's lock was deleted behind its back: its release's handoff finds it absent, grants the
     * waiter a fresh lock with a higher token, and tells the holder the truth (release() false, a loss
     * event). Two valid leases never coexist.
     */
    @Test
    void shouldHandAnAbsentLockToTheWaiterAndReportTheHoldersLoss() throws Exception {
        String name = "handoff-attack:lost-absent";
        LockClient node = client(Duration.ofSeconds(5));
        Lease held = node.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitQueued(name, 2);
        redis.deleteKey(lockKey(name));

        assertFalse(held.release(), "release() of a lease whose lock was gone");
        Lease next = waiting.get(10, TimeUnit.SECONDS);
        assertTrue(next.fencingToken() > held.fencingToken());
        assertEquals(LeaseState.LOST, held.state(), "found gone at its release: lost, as every observer says");
        assertEquals(
                LeaseLoss.Reason.STOLEN, held.lost().get(10, TimeUnit.SECONDS).reason());
        Eventually.until(
                () -> "the loss event of the holder; " + events, () -> events.lostReported(held.fencingToken()));
        assertTrue(next.release());
    }

    /**
     * The holder's lock was taken by another client meanwhile: the handoff touches nothing of the
     * thief's lock (value and TTL), the waiter is contended, and it gets the lock as soon as the thief
     * releases (its release grants the lock to the waiter's place in Redis's queue, and its message
     * wakes the waiter, not its fallback: the manual clock stands still).
     */
    @Test
    void shouldLeaveTheThiefsLockAloneAndWakeTheWaiterWhenTheThiefReleases() throws Exception {
        String name = "handoff-attack:lost-stolen";
        LockClient node = client(Duration.ofSeconds(5));
        Lease held = node.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        redis.deleteKey(lockKey(name));
        Lease thief = other().lock(name, NO_RENEW).tryAcquire().orElseThrow();
        CompletableFuture<Lease> waiting = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitQueued(name, 2);
        String thiefsValue = redis.get(lockKey(name)).orElseThrow();
        long thiefsTtl = redis.pttl(lockKey(name));

        assertFalse(held.release(), "release() of a lease whose lock was taken");
        assertEquals(thiefsValue, redis.get(lockKey(name)).orElseThrow(), "the thief's lock");
        assertEquals(thiefsTtl, redis.pttl(lockKey(name)), "the thief's TTL");
        assertTrue(thief.isValid());
        assertFalse(waiting.isDone(), "the waiter while the thief holds");
        assertTrue(thief.release());
        Lease next = waiting.get(10, TimeUnit.SECONDS);
        assertTrue(next.fencingToken() > thief.fencingToken());
        assertTrue(next.release());
    }

    /**
     * The holder's validity runs out as it releases: it is lost, not released, so nothing is handed
     * over; its client's waiter asks Redis only once the holder has been told (callback executor
     * paused: the lock stays in Redis, the waiter waits), then gets the lock with a higher token.
     */
    @Test
    void shouldNotHandOverALeaseThatRanOutAndWakeTheWaiterOnlyAfterTheHolderWasTold() throws Exception {
        String name = "handoff-attack:lost-expired";
        try (GateExecutor callbacks = new GateExecutor("handoff-attack-cb", 2)) {
            LockClient node = LockClient.builder(gate)
                    .ticker(clock)
                    .callbackExecutor(callbacks)
                    .listener(events)
                    .build();
            client = node;
            Lease held = node.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(120));
            awaitQueued(name, 2);
            callbacks.pause();
            clock.advance(
                    held.remaining().minus(Duration.ofMillis(50))); // past the loss check, before Redis expires it
            Eventually.until("the lease was declared lost", () -> held.state() == LeaseState.LOST);
            assertFalse(held.release(), "release() of a lease that was lost");
            assertEquals(0, gate.handoffs.get(), "a lost lease hands nothing over: " + gate.calls);
            assertTrue(redis.exists(lockKey(name)), "the lock stays until the holder is told");
            assertFalse(waiting.isDone(), "the waiter before the holder was told");
            assertFalse(held.lost().isDone(), "lost() completes on the paused callback executor");
            callbacks.resume();
            Lease next = waiting.get(10, TimeUnit.SECONDS);
            assertTrue(held.lost().isDone(), "the holder was told before the waiter got the lock");
            assertTrue(next.fencingToken() > held.fencingToken());
            assertTrue(next.release());
        }
    }

    // ---- G7: a handoff racing the waiter's own attempt ------------------------------------------

    /**
     * The head's own attempt is on its way (sent, not yet run) when a lease of its client releases:
     * the claim is refused, the release publishes, the head's attempt and its pending wake-up get it
     * the lock; or, if its attempt came back contended first, the release hands it over. Either way
     * at once (the manual clock stands still), and exactly one lease.
     */
    @ParameterizedTest(name = "attempt runs {0} the release")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"before", "after"})
    void shouldGetTheLockAtOnceWhenAHandoffRacesTheWaitersOwnAttempt(String attemptRuns) throws Exception {
        String name = "handoff-attack:race-own-attempt-" + attemptRuns;
        LockClient node = client(Duration.ofSeconds(5));
        Lease elsewhere = other().lock(
                        name,
                        LockOptions.builder()
                                .leaseTime(Duration.ofSeconds(2))
                                .autoRenew(false)
                                .build())
                .acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(120));
        awaitQueued(name, 2);
        gate.gateNextPlainAcquire(Gate.HOLD_SEND);
        // the other client's 2 s lease runs out in Redis: the waiter's fallback sends an attempt, held on its way
        advanceUntil("the waiter's fallback attempt", Duration.ofMillis(250), Duration.ofSeconds(5), gate::holding);
        assertFalse(elsewhere.isValid());
        // the waiter's place in Redis's queue lapses (the attempt that would renew it is held), so a
        // try without a wait finds the lock free with nobody queued, and takes it
        clock.advance(Duration.ofMillis(GrantOrder.WAITER_LEASE_MS + 1));
        Lease barging = node.lock(name, NO_RENEW).tryAcquire().orElseThrow();
        if (attemptRuns.equals("before")) {
            gate.letGo(); // contended: the barging lease holds (the reply is handled before letGo returns)
            assertFalse(waiting.isDone());
            assertTrue(barging.release());
        } else {
            assertTrue(barging.release()); // claim refused (attempt in flight): a plain release that publishes
            gate.letGo();
        }
        Lease next = waiting.get(5, TimeUnit.SECONDS);
        assertTrue(next.fencingToken() > barging.fencingToken());
        assertEquals(
                next.fencingToken(), node.lock(name).inspect().orElseThrow().fencingToken());
        assertTrue(next.release());
        assertFalse(redis.exists(lockKey(name)));
    }

    // ---- G7: the yield, FIFO, a lingering subscription nobody waits on -------------------------

    /**
     * Another client's waiter gave up (its subscription lingers, its place in Redis's queue is gone
     * with its clean-up). Ten local waiters pass the lock on as soon as they get it: the 8th handoff
     * in a row may yield, but nobody is ahead in Redis's queue, so it grants; no clock moves, and the
     * order stays first-in first-out.
     */
    @Test
    void shouldGoOnInFifoOrderWhenTheOtherClientsWaiterGaveUp() throws Exception {
        String name = "handoff-attack:yield-lingering";
        LockClient node = client(Duration.ofSeconds(5));
        Lease held = node.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> othersWaiter = other().lock(name).acquireAsync(Duration.ofSeconds(60));
        Eventually.until("the other client subscribed", () -> redis.subscriberCount(channel(name)) == 1);
        othersWaiter.cancel(false); // its subscription lingers (1 s on the manual clock)
        Eventually.until("the other client's clean-up took its place out", () -> !redis.exists(queueKey(name)));
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            int index = i;
            CompletableFuture<Lease> waiter = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
            waiters.add(waiter.thenApply(lease -> {
                order.add(index);
                lease.release();
                return lease;
            }));
            if (i == 1) {
                Eventually.until(
                        "both clients subscribed",
                        () -> redis.subscriberCount(channel(name)) == 2 && gate.plainAcquires.get() >= 2);
            }
        }
        assertTrue(held.release());
        Eventually.until(
                "every waiter had its turn without the clock moving; handoff replies " + gate.handoffReplies,
                () -> waiters.stream().allMatch(CompletableFuture::isDone));
        for (CompletableFuture<Lease> waiter : waiters) {
            waiter.get(5, TimeUnit.SECONDS);
        }
        assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), order, "the order the waiters got the lock in");
        assertFalse(
                gate.handoffReplies.stream().anyMatch(YieldToRedisQueueTest::yielded),
                "no handoff yielded: " + gate.handoffReplies);
        assertFalse(redis.exists(lockKey(name)));
    }

    /**
     * Starvation of another client: twelve local waiters pass the lock on as soon as they get it,
     * while another client's waiter queues in Redis. The 8th handoff in a row yields: Redis grants the
     * lock to the other client's waiter (the head of its queue) and queues the local waiter behind
     * it; the other client's release grants it back, and the local waiters go on in their order. The
     * manual clock stands still: no timer decides.
     */
    @Test
    void shouldLetAnotherClientsWaiterInAtTheYieldAfterEightLocalHandoffs() throws Exception {
        String name = "handoff-attack:starvation";
        LockClient node = client(Duration.ofSeconds(5));
        Lease held = node.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        List<String> order = new CopyOnWriteArrayList<>();
        CompletableFuture<Lease> othersWaiter = other().lock(name, NO_RENEW)
                .acquireAsync(Duration.ofSeconds(60))
                .thenApply(lease -> {
                    order.add("B");
                    lease.release();
                    return lease;
                });
        Eventually.until("the other client's waiter subscribed", () -> redis.subscriberCount(channel(name)) == 1);
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            String label = "A" + i;
            waiters.add(node.lock(name, NO_RENEW)
                    .acquireAsync(Duration.ofSeconds(60))
                    .thenApply(lease -> {
                        order.add(label);
                        lease.release();
                        return lease;
                    }));
            if (i == 1) {
                Eventually.until(
                        "both clients subscribed",
                        () -> redis.subscriberCount(channel(name)) == 2 && gate.plainAcquires.get() >= 2);
            }
        }
        assertTrue(held.release());
        othersWaiter.get(10, TimeUnit.SECONDS); // before any clock move
        advanceUntil(
                "every local waiter had its turn",
                Duration.ofMillis(1),
                Duration.ofMillis(100),
                () -> waiters.stream().allMatch(CompletableFuture::isDone));
        assertEquals(
                List.of("A1", "A2", "A3", "A4", "A5", "A6", "A7", "B", "A8", "A9", "A10", "A11", "A12"),
                order,
                "the order the lock went in; handoff replies " + gate.handoffReplies);
        assertFalse(redis.exists(lockKey(name)));
    }

    // ---- G7: no polling, one subscription, nothing left subscribed -------------------------------

    /**
     * Five waiters queue behind a lease of their own client for 25 s: not one call reaches Redis
     * meanwhile (no polling: the head waits for the handoff), one subscription serves them all, the
     * release hands the lock down the queue in five handoffs (no release message, no attempt), and one
     * linger after the last waiter left, nothing is subscribed any more.
     */
    @Test
    void shouldAskNothingOfRedisWhileALocalLeaseHoldsAndUnsubscribeAfterTheLinger() throws Exception {
        String name = "handoff-attack:quiet";
        LockClient node = client(Duration.ofSeconds(5));
        Lease held = node.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiters.add(node.lock(name, NO_RENEW)
                    .acquireAsync(Duration.ofSeconds(120))
                    .thenApply(lease -> {
                        lease.release();
                        return lease;
                    }));
            if (i == 0) {
                awaitQueued(name, 2);
            }
        }
        int callsBefore = gate.calls.size();
        advanceBy(Duration.ofSeconds(25), Duration.ofSeconds(1));
        assertEquals(
                List.of(),
                gate.calls.subList(callsBefore, gate.calls.size()),
                "calls while a local lease held the lock");
        assertEquals(1, redis.subscriberCount(channel(name)), "subscriptions for five waiters");

        assertTrue(held.release());
        for (CompletableFuture<Lease> waiter : waiters) {
            waiter.get(10, TimeUnit.SECONDS);
        }
        assertEquals(5, gate.handoffs.get(), "handoffs: " + gate.calls);
        assertEquals(1, gate.releases.get(), "plain releases (the last one)");
        assertEquals(2, gate.plainAcquires.get(), "attempts (the holder's, and the first waiter's before it queued)");
        assertEquals(1, redis.subscriberCount(channel(name)), "the subscription lingers after the last waiter");
        advanceUntil(
                "the lingering subscription is dropped",
                Duration.ofMillis(250),
                Duration.ofSeconds(2),
                () -> redis.subscriberCount(channel(name)) == 0);
    }

    // ---- G13: no user code on the store's thread or the engine's ---------------------------------

    /**
     * With replies completing on the store's latency thread, a waiter's continuation after a handoff,
     * the holder's releaseAsync continuation and the listeners run on the client's own threads
     * (callback pool, event thread), never on the I/O-like thread or the timer.
     */
    @Test
    void shouldRunNoUserCodeOnTheReplyThreadOfAHandoff() throws Exception {
        String name = "handoff-attack:threads";
        try (InMemoryLockBackend slow = new InMemoryLockBackend()) {
            slow.setLatency(Duration.ofMillis(2));
            HandoffEvents listener = new HandoffEvents();
            try (LockClient node =
                    LockClient.builder(slow.newNode()).listener(listener).build()) {
                Lease held = node.lock(name).acquire(Duration.ofSeconds(5));
                CompletableFuture<String> waiterThread = node.lock(name)
                        .acquireAsync(Duration.ofSeconds(30))
                        .thenApply(lease -> {
                            lease.release();
                            return Thread.currentThread().getName();
                        });
                Eventually.until("the waiter subscribed", () -> slow.subscriberCount(channel(name)) == 1);
                String releaseThread = held.releaseAsync()
                        .thenApply(done -> Thread.currentThread().getName())
                        .get(10, TimeUnit.SECONDS);
                String waiter = waiterThread.get(10, TimeUnit.SECONDS);
                Eventually.until(
                        "the listeners heard both releases",
                        () -> listener.events.stream()
                                        .filter(e -> e.startsWith("released"))
                                        .count()
                                == 2);
                // A continuation runs on the callback pool, or on the thread that attaches it if the
                // future is complete by then (the test's own: a busy machine may pause it for longer
                // than the 2 ms reply); never on the store's reply thread or the engine's.
                String testThread = Thread.currentThread().getName();
                for (String thread : List.of(releaseThread, waiter)) {
                    assertTrue(
                            thread.startsWith("leasehold-callback") || thread.equals(testThread),
                            "a user continuation ran on " + thread);
                }
                assertTrue(
                        listener.events.stream().anyMatch(e -> e.startsWith("handoff")),
                        "a handoff event: " + listener);
                assertTrue(
                        listener.threads.stream().allMatch(t -> t.startsWith("leasehold-events")),
                        "listeners ran on " + listener.threads);
            }
        }
    }

    // ---- G12: close during a run of handoffs -----------------------------------------------------

    /**
     * The client closes while a handoff's reply is held and five more waiters queue: close() returns
     * within its timeout, every waiter ends, and once the held reply arrives, no lock and no
     * subscription are left.
     */
    @Test
    void shouldCloseBoundedDuringAHandoffAndLeaveNothingBehind() throws Exception {
        String name = "handoff-attack:close";
        LockClient node = LockClient.builder(gate)
                .ticker(clock)
                .closeTimeout(Duration.ofSeconds(3))
                .build();
        client = node;
        Lease held = node.lock(name).acquire(Duration.ofSeconds(5));
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            waiters.add(node.lock(name).acquireAsync(Duration.ofSeconds(60)));
            if (i == 0) {
                awaitQueued(name, 2);
            }
        }
        gate.gateNextHandoff(Gate.HOLD_REPLY);
        held.releaseAsync();
        Eventually.until("the handoff ran, its reply held", gate::holding);
        long start = System.nanoTime();
        node.close();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs < 6_000, "close() took " + tookMs + " ms with a 3 s close timeout");
        gate.letGo();
        for (CompletableFuture<Lease> waiter : waiters) {
            // Each waiter ends with close's IllegalStateException, or (a release message raced close's
            // loop over the waiters) was handed a lease that close() then released.
            try {
                Lease lease = waiter.get(10, TimeUnit.SECONDS);
                assertEquals(
                        LeaseState.RELEASED,
                        lease.state(),
                        "a lease handed out during close() and left held: " + lease);
            } catch (ExecutionException e) {
                assertInstanceOf(IllegalStateException.class, e.getCause());
            }
        }
        Eventually.until(
                "no lock and no subscription left; " + redis.get(lockKey(name)) + " " + gate.calls,
                () -> !redis.exists(lockKey(name)) && redis.subscriberCount(channel(name)) == 0);
    }
}
