package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseLostException;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.ReleaseUnconfirmedException;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every way a lease ends, at every moment, on a hand-moved clock where the moment matters (a
 * {@link CommandGateBackend} decides when Redis runs a command and when its answer arrives): written
 * by someone who did not write the lease endings, to break them. Each test that pins a defect failed
 * before its fix; the others pin what the lease endings withstand.
 */
class LeaseEndingMomentsAttackTest {

    private static final long BOUND_SECONDS = 10;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<String> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private static String lockKey(String name) {
        return LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, name);
    }

    private static LockOptions lease(Duration leaseTime, boolean autoRenew) {
        return LockOptions.builder().leaseTime(leaseTime).autoRenew(autoRenew).build();
    }

    /** A store on a hand-moved clock, the gate in front of one of its nodes, and a client on both. */
    private final class OnManualClock {
        final ManualClock clock = new ManualClock();
        final InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock);
        final CommandGateBackend gate = new CommandGateBackend(redis.newNode());
        final LockClient client;

        OnManualClock(Duration commandTimeout) {
            client = LockClient.builder(gate)
                    .ticker(clock)
                    .commandTimeout(commandTimeout)
                    .listener(new Events(events))
                    .build();
            toClose.add(redis);
            toClose.add(client);
        }

        /** Another client of the same store (another process, as far as the locks go). */
        LockClient other() {
            LockClient other = LockClient.builder(redis.newNode()).ticker(clock).build();
            toClose.add(other);
            return other;
        }

        void advance(Duration amount) {
            clock.advance(amount);
        }
    }

    // =====================================================================================================
    // Defects
    // =====================================================================================================

    /**
     * D1. Redis answers every renewal in 10.5 s while the lease is 30 s: each answer arrives well
     * before the lease's loss check (29.6 s after the renewal is sent), but after the renewal's reply
     * deadline (halfway to the loss check, 19.8 s). The renewal is judged failed at the deadline, which
     * is fine (UNCERTAIN), but its answer, when it comes, is thrown away: the lease is never
     * reconfirmed and is declared LOST (BACKEND_UNAVAILABLE) at 29.6 s, while Redis holds the lock for
     * it until 40 s (and the retry's until 53 s). Before 4d4def3 the renewal waited the command timeout
     * and the lease stayed HELD. A reply that arrives while the lease is valid must count.
     */
    @Test
    void shouldNotDeclareLostALeaseWhoseEveryRenewalRedisAnswersBeforeItsLossCheck() throws Exception {
        OnManualClock on = new OnManualClock(Duration.ofSeconds(60)); // a command timeout longer than the lease
        on.gate.holdRenewRepliesFor(keys -> true);
        Lease lease =
                on.client.lock("slow:1", lease(Duration.ofSeconds(30), true)).acquire(Duration.ZERO);

        // The first renewal is sent at 10 s (and runs in Redis then: its TTL is now 30 s from 10 s).
        on.advance(Duration.ofSeconds(10));
        Eventually.until("the first renewal was sent", () -> on.gate.renewsSent.size() == 1);
        // 10.5 s later (past its reply deadline at 19.8 s): judged failed, the lease is uncertain.
        on.advance(Duration.ofMillis(10_500));
        Eventually.until("the renewal was judged failed", () -> lease.state() == LeaseState.UNCERTAIN);
        // Its answer arrives now, at 20.5 s, 9 s before the loss check: Redis renewed the lock.
        assertEquals(1, on.gate.answerHeldRenewals());
        assertTrue(on.redis.pttl(lockKey("slow:1")) > 19_000, "Redis holds the lock until 40 s");

        // The retry (3 s after the failure) meets the same 10.5 s latency; we go on to 29.7 s.
        on.advance(Duration.ofSeconds(3));
        Eventually.until("the retry was sent", () -> on.gate.renewsSent.size() >= 2);
        on.advance(Duration.ofMillis(6_200));

        assertTrue(on.redis.exists(lockKey("slow:1")), "Redis still holds the lock for the lease");
        assertNotEquals(
                LeaseState.LOST,
                lease.state(),
                "a lease whose renewal Redis confirmed before its loss check is not lost; events " + events);
        assertFalse(lease.lost().isDone(), "lost() " + lease.lost());
    }

    /**
     * D2. A release is on its way to a Redis that stopped answering (a frozen store whose node, like a
     * driver whose close does not fail the commands in flight, leaves them pending) when the client
     * closes. close() waits its timeout, then stops the engine's timer, and with it the command timeout
     * of the release in flight: the release never ends. release() blocks forever, the lease stays
     * RELEASING forever, and its listeners never hear an ending (the held gauge never comes down).
     * Every engine call is bounded by the command timeout (Engine's class doc: "every call gets the
     * command timeout"); close() must not lift that bound.
     */
    @Test
    void shouldNotLeaveAReleasePendingForeverWhenCloseStopsTheTimerWhileRedisIsFrozen() throws Exception {
        InMemoryLockBackend redis = new InMemoryLockBackend();
        toClose.add(redis::thaw);
        toClose.add(redis);
        LockClient client = LockClient.builder(redis.newNode())
                .commandTimeout(Duration.ofSeconds(1))
                .closeTimeout(Duration.ofMillis(300))
                .listener(new Events(events))
                .build();
        Lease lease = client.lock("frozen:1").acquire(Duration.ZERO);

        redis.freeze();
        CompletableFuture<Boolean> release = lease.releaseAsync();
        assertEquals(LeaseState.RELEASING, lease.state());
        client.close();

        // Bounded: the command timeout (1 s) is long over by then.
        ExecutionException failed =
                assertThrows(ExecutionException.class, () -> release.get(BOUND_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(ReleaseUnconfirmedException.class, failed.getCause());
        assertEquals(LeaseState.RELEASED, lease.state());
    }

    /**
     * D3. close() called from a callback (here a callLockedAsync body) on a single-thread callback
     * executor of the user's: close() ends the held leases LOST and waits for their holders to be told
     * on that executor, whose only thread is close() itself. It waits out its whole timeout, then
     * leaves every lock in Redis (reachable all along) for a whole lease time: the tasks that would
     * have released them run only after close() returned, when nothing can be sent any more.
     */
    @Test
    void shouldFreeTheLocksWhenCloseIsCalledFromACallbackOnASingleThreadCallbackExecutor() throws Exception {
        InMemoryLockBackend redis = new InMemoryLockBackend();
        toClose.add(redis);
        ExecutorService single = Executors.newSingleThreadExecutor();
        toClose.add(single::shutdownNow);
        Duration closeTimeout = Duration.ofSeconds(2);
        LockClient client = LockClient.builder(redis.newNode())
                .callbackExecutor(single)
                .closeTimeout(closeTimeout)
                .build();
        Lease other = client.lock("single:b").acquire(Duration.ZERO);
        AtomicReference<Long> closeTook = new AtomicReference<>();

        CompletableFuture<Object> call = client.lock("single:a").callLockedAsync(Duration.ZERO, lease -> {
            long start = System.nanoTime();
            client.close();
            closeTook.set(System.nanoTime() - start);
            return CompletableFuture.completedFuture(null);
        });
        ExecutionException outcome = assertThrows(ExecutionException.class, () -> call.get(20, TimeUnit.SECONDS));
        assertInstanceOf(LeaseLostException.class, outcome.getCause());
        assertEquals(
                LeaseLoss.Reason.CLIENT_CLOSED,
                other.lost().get(5, TimeUnit.SECONDS).reason());

        // Give whatever was queued its chance to run, then look at Redis.
        CompletableFuture.runAsync(() -> {}, single).get(5, TimeUnit.SECONDS);
        assertAll(
                () -> assertFalse(redis.exists(lockKey("single:a")), "lock a left in Redis for its lease time"),
                () -> assertFalse(redis.exists(lockKey("single:b")), "lock b left in Redis for its lease time"),
                () -> assertTrue(
                        closeTook.get() < closeTimeout.toNanos(),
                        "close() took " + Duration.ofNanos(closeTook.get()) + " of its " + closeTimeout));
    }

    /**
     * D4. A 30 s lease rides along in the renew call of a 3 s lease of the same slot (the watchdog
     * batches leases due within half a renewal period). Judged at the batch's earliest point (0.9 s
     * here), the 30 s lease, whose own renewal had 12 s to be answered, would go UNCERTAIN too when Redis
     * takes longer than that: each lease must be judged at its own point (OverdueRenewals).
     */
    @Test
    void shouldNotMakeALongLeaseUncertainBecauseItsRenewalRodeInAShortLeasesBatch() throws Exception {
        OnManualClock on = new OnManualClock(Duration.ofSeconds(60));
        String longKey = lockKey("mix:long");
        Lease shortLease =
                on.client.lock("mix:short", lease(Duration.ofSeconds(3), true)).acquire(Duration.ZERO);
        Lease longLease =
                on.client.lock("mix:long", lease(Duration.ofSeconds(30), true)).acquire(Duration.ZERO);
        on.gate.holdRenewRepliesFor(keys -> keys.contains(longKey));

        // The short lease renews every second; at 5 s the long one (due at 10 s) rides along.
        for (int second = 1; second <= 5; second++) {
            int sent = second;
            on.advance(Duration.ofSeconds(1));
            Eventually.until("renewal " + sent + " was sent", () -> on.gate.renewsSent.size() >= sent);
        }
        assertTrue(on.gate.renewsSent.get(4).contains(longKey), "batched: " + on.gate.renewsSent);
        assertEquals(1, on.gate.heldRenewals());

        // Redis has not answered after 1.5 s: overdue for the 3 s lease (its point was 0.9 s), early for the
        // 30 s one (12 s).
        on.advance(Duration.ofMillis(1500));
        Eventually.until(
                "the short lease's renewal was judged overdue", () -> shortLease.state() == LeaseState.UNCERTAIN);
        assertEquals(
                LeaseState.HELD,
                longLease.state(),
                "a 30 s lease whose renewal has been in flight for 1.5 s of the 12 s it had; events " + events);

        // And once Redis answers (before the short lease's loss check), both are held, nothing was lost.
        assertEquals(1, on.gate.answerHeldRenewals());
        Eventually.until("the short lease is held again", () -> shortLease.state() == LeaseState.HELD);
        assertEquals(LeaseState.HELD, longLease.state());
    }

    /**
     * D5. The release's time rule compares the answer's arrival with the lease's validity <em>bounded
     * by its max-hold time</em>, not with what Redis holds. A lease (1 s, max hold 1 s) extended to 10 s
     * has its lock in Redis until 10 s; another client takes it at once (deleted by hand, as an
     * operator or a flush would); the lease's release, asked at 0.9 s, is answered at 1.1 s finding
     * another owner. Redis could not have let the lock expire before 10 s, so the lock was taken
     * while the work ran: STOLEN, and callLocked/withLock must say so. It ends RELEASED, unconfirmed
     * ("it may have expired on its own after the work ended"), so a body-style call would return the
     * body's value as if nothing overlapped.
     */
    @Test
    void shouldEndLostStolenWhenAReleaseAnsweredAfterTheMaxHoldBoundFindsTheLockTakenBeforeItsTtlRanOut()
            throws Exception {
        OnManualClock on = new OnManualClock(Duration.ofSeconds(5));
        LockOptions bounded = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(1))
                .maxHoldTime(Duration.ofSeconds(1))
                .autoRenew(false)
                .build();
        Lease lease = on.client.lock("hold:1", bounded).acquire(Duration.ZERO);
        lease.extend(Duration.ofSeconds(10));
        assertTrue(on.redis.pttl(lockKey("hold:1")) > 9_000, "Redis holds the lock for 10 s");

        on.redis.deleteKey(lockKey("hold:1"));
        on.other().lock("hold:1").acquire(Duration.ZERO);
        on.advance(Duration.ofMillis(900));
        on.gate.holdReleases();
        CompletableFuture<Boolean> release = lease.releaseAsync();
        assertEquals(LeaseState.RELEASING, lease.state(), "asked while valid");
        on.advance(Duration.ofMillis(200));
        assertEquals(1, on.gate.sendHeldReleases());

        assertFalse(release.get(BOUND_SECONDS, TimeUnit.SECONDS));
        assertEquals(LeaseState.LOST, lease.state(), "events " + events);
    }

    // =====================================================================================================
    // Withstood
    // =====================================================================================================

    /** A release held back, then answered before the lease's deadline after another client took the lock: LOST (STOLEN) everywhere. */
    @Test
    void shouldEndLostStolenWhenAReleaseAnsweredBeforeTheDeadlineFindsTheLockTaken() throws Exception {
        OnManualClock on = new OnManualClock(Duration.ofSeconds(5));
        Lease lease =
                on.client.lock("theft:1", lease(Duration.ofSeconds(2), false)).acquire(Duration.ZERO);
        on.gate.holdReleases();
        CompletableFuture<Boolean> release = lease.releaseAsync();
        assertEquals(LeaseState.RELEASING, lease.state());
        assertEquals(Duration.ZERO, lease.remaining(), "a releasing lease is no longer valid");

        on.redis.deleteKey(lockKey("theft:1"));
        Lease thief = on.other().lock("theft:1").acquire(Duration.ZERO);
        on.advance(Duration.ofMillis(1_900)); // 1.9 s of a 2 s lease: its validity (1.978 s) has not run out
        assertEquals(1, on.gate.sendHeldReleases());

        assertFalse(release.get(BOUND_SECONDS, TimeUnit.SECONDS));
        assertEquals(LeaseState.LOST, lease.state());
        assertEquals(
                LeaseLoss.Reason.STOLEN,
                lease.lost().get(BOUND_SECONDS, TimeUnit.SECONDS).reason());
        assertTrue(thief.isValid(), "the thief's lock was not touched");
        Eventually.until("one ending", () -> endings(lease.fencingToken()).size() == 1);
        assertEquals(List.of("lost:STOLEN"), endings(lease.fencingToken()));
    }

    /** The same release answered just after the deadline, the lock having expired on its own: RELEASED, unconfirmed, never lost. */
    @Test
    void shouldEndReleasedUnconfirmedWhenAReleaseAnsweredAtTheDeadlineFindsTheLockExpired() throws Exception {
        OnManualClock on = new OnManualClock(Duration.ofSeconds(5));
        Lease lease =
                on.client.lock("expiry:1", lease(Duration.ofSeconds(2), false)).acquire(Duration.ZERO);
        on.gate.holdReleases();
        CompletableFuture<Boolean> release = lease.releaseAsync();
        on.advance(Duration.ofSeconds(2)); // the key expires in the store; the lease's validity ran out
        assertEquals(1, on.gate.sendHeldReleases());

        assertFalse(release.get(BOUND_SECONDS, TimeUnit.SECONDS), "unconfirmed: false, not an exception");
        assertEquals(LeaseState.RELEASED, lease.state());
        assertFalse(lease.lost().isDone());
        Eventually.until("one ending", () -> endings(lease.fencingToken()).size() == 1);
        assertEquals(List.of("releaseUnconfirmed"), endings(lease.fencingToken()));
    }

    /** A second release while the first is in flight answers false at once; both agree with the final state. */
    @Test
    void shouldAnswerASecondReleaseWhileTheFirstIsInFlightAndAgreeOnTheEnding() throws Exception {
        OnManualClock on = new OnManualClock(Duration.ofSeconds(5));
        Lease lease =
                on.client.lock("twice:1", lease(Duration.ofSeconds(30), true)).acquire(Duration.ZERO);
        on.gate.holdReleases();
        CompletableFuture<Boolean> first = lease.releaseAsync();
        assertFalse(lease.releaseAsync().get(BOUND_SECONDS, TimeUnit.SECONDS), "already being released");
        assertFalse(lease.release(), "a blocking second release does not wait for the first");
        assertEquals(LeaseState.RELEASING, lease.state());
        assertEquals(1, on.gate.sendHeldReleases());
        assertTrue(first.get(BOUND_SECONDS, TimeUnit.SECONDS));
        assertEquals(LeaseState.RELEASED, lease.state());
        Eventually.until("one ending", () -> endings(lease.fencingToken()).size() == 1);
        assertEquals(List.of("released"), endings(lease.fencingToken()));
        assertEquals(1, on.gate.releasesSent.get());
    }

    /** close() while a release is held back: the release is sent, settles RELEASED, and close() waited for it. */
    @Test
    void shouldSettleAReleaseInFlightWhenCloseRacesIt() throws Exception {
        OnManualClock on = new OnManualClock(Duration.ofSeconds(5));
        Lease lease =
                on.client.lock("race:1", lease(Duration.ofSeconds(30), true)).acquire(Duration.ZERO);
        on.gate.holdReleases();
        CompletableFuture<Boolean> release = lease.releaseAsync();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(on.client::close);
        Eventually.until("close() is waiting", () -> on.client.isClosed());
        assertFalse(closing.isDone());
        on.gate.sendHeldReleases();
        closing.get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertTrue(release.get(BOUND_SECONDS, TimeUnit.SECONDS));
        assertEquals(LeaseState.RELEASED, lease.state());
        assertFalse(on.redis.exists(lockKey("race:1")));
        Eventually.until("one ending", () -> endings(lease.fencingToken()).size() == 1);
        assertEquals(List.of("released"), endings(lease.fencingToken()));
    }

    /** A callLocked body releases its own lease, and the release finds it stolen: callLocked throws LeaseLostException. */
    @Test
    void shouldThrowLeaseLostFromCallLockedWhenTheBodysOwnReleaseFindsTheLockStolen() throws Exception {
        OnManualClock on = new OnManualClock(Duration.ofSeconds(5));
        DistributedLock lock = on.client.lock("own:1", lease(Duration.ofSeconds(30), true));
        AtomicReference<Lease> held = new AtomicReference<>();
        AtomicReference<Boolean> releasedInBody = new AtomicReference<>();
        LeaseLostException lost = assertThrows(
                LeaseLostException.class,
                () -> lock.callWithLease(Duration.ZERO, l -> {
                    held.set(l);
                    on.redis.deleteKey(lockKey("own:1"));
                    on.other().lock("own:1").acquire(Duration.ZERO);
                    releasedInBody.set(l.release());
                    return "done";
                }));
        assertEquals(LeaseLoss.Reason.STOLEN, lost.loss().reason());
        assertFalse(releasedInBody.get());
        assertEquals(LeaseState.LOST, held.get().state());
        assertFalse(Thread.interrupted(), "no interrupt leaks out of callLocked");
        Eventually.until("one ending", () -> endings(held.get().fencingToken()).size() == 1);
        assertEquals(List.of("lost:STOLEN"), endings(held.get().fencingToken()));
    }

    /** The async form: the body releases its lease (without waiting) and returns; the release finds it stolen. */
    @Test
    void shouldFailCallLockedAsyncWhenTheBodysOwnReleaseFindsTheLockStolen() throws Exception {
        OnManualClock on = new OnManualClock(Duration.ofSeconds(5));
        DistributedLock lock = on.client.lock("own:2", lease(Duration.ofSeconds(30), true));
        on.gate.holdReleases();
        AtomicReference<Lease> held = new AtomicReference<>();
        CompletableFuture<String> call = lock.callLockedAsync(Duration.ZERO, l -> {
            held.set(l);
            l.releaseAsync();
            return CompletableFuture.completedFuture("done");
        });
        Eventually.until("the body's release is held", () -> on.gate.heldReleaseCount() == 1);
        assertFalse(call.isDone(), "the outcome waits for the release's answer");
        on.redis.deleteKey(lockKey("own:2"));
        on.other().lock("own:2").acquire(Duration.ZERO);
        on.gate.sendHeldReleases();
        ExecutionException failed =
                assertThrows(ExecutionException.class, () -> call.get(BOUND_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(LeaseLostException.class, failed.getCause());
        assertEquals(LeaseState.LOST, held.get().state());
        assertEquals(
                LeaseLoss.Reason.STOLEN,
                held.get().lost().get(BOUND_SECONDS, TimeUnit.SECONDS).reason());
    }

    /** Reentrant callLocked: the outer lease RELEASING (released by hand) is acquired afresh; a LOST one throws at once. */
    @Test
    void shouldAcquireAfreshUnderARelasingOuterLeaseAndThrowUnderALostOne() throws Exception {
        OnManualClock on = new OnManualClock(Duration.ofSeconds(5));
        DistributedLock lock = on.client.lock("reenter:1", lease(Duration.ofSeconds(30), true));
        on.gate.holdReleases();
        String result = lock.callWithLease(Duration.ZERO, outer -> {
            outer.releaseAsync(); // held back: the outer lease stays RELEASING
            assertEquals(LeaseState.RELEASING, outer.state());
            CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
                Eventually.until("the inner call waits", () -> on.gate.heldReleaseCount() == 1);
                on.gate.sendHeldReleases();
            });
            String inner = lock.callWithLease(Duration.ofSeconds(5), again -> {
                assertNotEquals(outer.fencingToken(), again.fencingToken(), "a fresh lease");
                return "inner";
            });
            sender.join();
            return inner;
        });
        assertEquals("inner", result);

        LeaseLostException lost = assertThrows(
                LeaseLostException.class,
                () -> lock.callWithLease(Duration.ZERO, outer -> {
                    on.redis.deleteKey(lockKey("reenter:1"));
                    assertThrows(LeaseLostException.class, () -> outer.extend(Duration.ofSeconds(30)));
                    return lock.callLocked(Duration.ZERO, () -> "never");
                }));
        assertEquals(LeaseLoss.Reason.STOLEN, lost.loss().reason());
        Thread.interrupted();
    }

    /** A blocking release() on the only thread of the user's callback executor neither deadlocks nor waits for that executor. */
    @Test
    void shouldNotDeadlockABlockingReleaseOnASingleThreadCallbackExecutor() throws Exception {
        InMemoryLockBackend redis = new InMemoryLockBackend();
        toClose.add(redis);
        redis.setLatency(Duration.ofMillis(20)); // replies on another thread
        ExecutorService single = Executors.newSingleThreadExecutor();
        toClose.add(single::shutdownNow);
        LockClient client =
                LockClient.builder(redis.newNode()).callbackExecutor(single).build();
        toClose.add(client);

        // A lease whose lock is stolen: its release runs on the callback thread, and ends LOST.
        CompletableFuture<Boolean> released = client.lock("block:1")
                .acquireAsync(Duration.ZERO)
                .thenApply(lease -> {
                    redis.deleteKey(lockKey("block:1"));
                    return lease.release(); // blocks the only callback thread
                });
        assertFalse(released.get(BOUND_SECONDS, TimeUnit.SECONDS));
        // And a plain one.
        CompletableFuture<Boolean> plain =
                client.lock("block:2").acquireAsync(Duration.ZERO).thenApply(Lease::release);
        assertTrue(plain.get(BOUND_SECONDS, TimeUnit.SECONDS));
    }

    /** close() from inside a callLocked body: the body is interrupted, callLocked throws CLIENT_CLOSED, the lock is freed. */
    @Test
    void shouldEndTheBodyLostAndFreeTheLockWhenCloseIsCalledInsideCallLocked() throws Exception {
        InMemoryLockBackend redis = new InMemoryLockBackend();
        toClose.add(redis);
        LockClient client = LockClient.builder(redis.newNode())
                .closeTimeout(Duration.ofSeconds(2))
                .listener(new Events(events))
                .build();
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        long start = System.nanoTime();
        LeaseLostException lost = assertThrows(
                LeaseLostException.class,
                () -> client.lock("inside:1").callLocked(Duration.ZERO, () -> {
                    client.close();
                    interrupted.set(Thread.currentThread().isInterrupted());
                    return "done";
                }));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1), "close() did not wait its timeout");
        assertEquals(LeaseLoss.Reason.CLIENT_CLOSED, lost.loss().reason());
        assertTrue(interrupted.get(), "the body was told by an interrupt");
        assertFalse(Thread.interrupted(), "no interrupt leaks out of callLocked");
        assertFalse(redis.exists(lockKey("inside:1")));
    }

    // ---- helpers ------------------------------------------------------------------------------------

    private List<String> endings(long token) {
        return events.stream()
                .filter(e -> e.startsWith(token + " "))
                .map(e -> e.substring(e.indexOf(' ') + 1))
                .filter(e -> e.equals("released") || e.equals("releaseUnconfirmed") || e.startsWith("lost:"))
                .collect(Collectors.toList());
    }

    /** Records "token event" for each lease event. */
    private static final class Events implements LockEventListener {
        private final List<String> events;

        Events(List<String> events) {
            this.events = events;
        }

        @Override
        public void onAcquired(String lockName, long fencingToken, Duration waited) {
            events.add(fencingToken + " acquired");
        }

        @Override
        public void onReleased(String lockName, long fencingToken, Duration held) {
            events.add(fencingToken + " released");
        }

        @Override
        public void onReleaseUnconfirmed(
                String lockName, long fencingToken, Duration held, ReleaseUnconfirmedException cause) {
            events.add(fencingToken + " releaseUnconfirmed");
        }

        @Override
        public void onLeaseUncertain(String lockName, long fencingToken, Duration validFor, Throwable cause) {
            events.add(fencingToken + " uncertain");
        }

        @Override
        public void onLeaseReconfirmed(String lockName, long fencingToken) {
            events.add(fencingToken + " reconfirmed");
        }

        @Override
        public void onLeaseLost(LeaseLoss loss) {
            events.add(loss.fencingToken() + " lost:" + loss.reason());
        }
    }
}
