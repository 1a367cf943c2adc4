package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockException;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.internal.PausingTicker.Point;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.driver.Eventually;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Adversarial tests (from a review by someone who did not write the code) of the races at a lease's
 * ends: a late acquire reply undone only after the lease settled, a release during an outage that must
 * still end (and be told) when the client closes, and the hand-out paused at every point while the
 * caller cancels, the client closes or the lease expires. Each attack appends a line to
 * {@code target/lease-ending-races.txt}.
 */
class LeaseEndingRacesAttackTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
    private static final Path RESULTS = Path.of("target", "lease-ending-races.txt");

    private static String lockKey(String name) {
        return LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, name);
    }

    // ---- A1: the deferred late-reply clean-up runs inside declareLost, before the holder is told -------

    /**
     * A lease whose round's first acquire timed out (reply held) and whose retry won; the late reply
     * then arrives while the lease is held, so its clean-up waits for {@code settled()}. The lease then
     * runs out (EXPIRED, auto-renew off), with the callback executor paused so that the holder cannot
     * have been told yet ({@code lost()} completes on it). G6: the holder is told before the engine
     * releases the lock for others. (It failed 20 of 20 when {@code settled} completed inside
     * declareLost, before the holder was told: the clean-up deleted the lock and another node took it.)
     */
    @RepeatedTest(20)
    void a1_lateReplyCleanUpMustNotFreeTheLockBeforeTheHolderIsToldOfItsLoss() throws Exception {
        boolean ok = false;
        try {
            runLossOrdering(true);
            ok = true;
        } finally {
            record("A1 late reply + loss: lock freed before holder told", ok);
        }
    }

    /** A1's control: the same without a late reply. The lock stays until the holder is told (passes). */
    @RepeatedTest(5)
    void a1Control_withoutALateReplyTheLockStaysUntilTheHolderIsTold() throws Exception {
        boolean ok = false;
        try {
            runLossOrdering(false);
            ok = true;
        } finally {
            record("A1-control no late reply", ok);
        }
    }

    private void runLossOrdering(boolean lateReply) throws Exception {
        String name = "r9:a1";
        ManualClock clock = new ManualClock();
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock);
                GateExecutor callbacks = new GateExecutor("r9-a1-cb", 2)) {
            GatedRepliesBackend gated = new GatedRepliesBackend(redis.newNode());
            Events events = new Events();
            LockClient client = LockClient.builder(gated)
                    .ticker(clock)
                    .commandTimeout(COMMAND_TIMEOUT)
                    .callbackExecutor(callbacks)
                    .listener(events)
                    .build();
            LockClient other = LockClient.builder(redis.newNode()).ticker(clock).build();
            try {
                LockOptions options = LockOptions.builder()
                        .leaseTime(Duration.ofSeconds(30))
                        .autoRenew(false)
                        .build();
                Lease lease = lateReply
                        ? leaseWonByARetry(client, gated, clock, name, options)
                        : client.lock(name, options)
                                .acquireAsync(Duration.ofSeconds(5))
                                .get(10, TimeUnit.SECONDS);
                gated.atRelease = () -> "holderToldOfLoss=" + lease.lost().isDone() + " state=" + lease.state();
                if (lateReply) {
                    gated.completeHeldAcquireReply(); // arrives while the lease is held: clean-up deferred to settled()
                }
                callbacks.pause();
                // Past the loss check, before the local validity ends: Redis still has the lock for ~350 ms.
                clock.advance(lease.remaining().minus(Duration.ofMillis(50)));
                Eventually.until("the lease was declared lost", () -> lease.state() == LeaseState.LOST);
                boolean told = lease.lost().isDone();
                boolean lockStillThere = redis.exists(lockKey(name));
                Optional<Lease> taken = other.lock(name, options).tryAcquire();
                List<String> releasesSoFar = List.copyOf(gated.releases);
                callbacks.resume();
                assertFalse(told, "sanity: lost() completes on the (paused) callback executor");
                assertTrue(
                        lockStillThere && taken.isEmpty(),
                        "G6: the holder had not been told of its loss (lost() pending, "
                                + "callback executor paused), yet the lock was already deleted (exists="
                                + lockStillThere
                                + ") and another node acquired it (token "
                                + taken.map(Lease::fencingToken).orElse(null)
                                + "); releases sent: " + releasesSoFar);
                Eventually.until("lost() completes", () -> lease.lost().isDone());
            } finally {
                callbacks.resume();
                other.close();
                client.close();
            }
        }
    }

    private static Lease leaseWonByARetry(
            LockClient client, GatedRepliesBackend gated, ManualClock clock, String name, LockOptions options)
            throws Exception {
        return gated.leaseWonByARetry(client, clock, COMMAND_TIMEOUT, name, options);
    }

    // ---- A2: a release during an outage, then close(): the release's retry is dropped ---------------

    /**
     * The holder releases while Redis is unreachable (the first attempt fails at once; a resend is
     * scheduled on the engine timer within the command timeout), then the client is closed. close()
     * waits for the release within its (short) timeout, then shuts the timer down with shutdownNow,
     * dropping the scheduled resend. Expect: the release future still completes (failed), the lease is
     * released once, settled.
     */
    @RepeatedTest(20)
    void a2_releaseDuringOutageThenCloseStillCompletesTheRelease() throws Exception {
        boolean ok = false;
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            Events events = new Events();
            LockClient client = LockClient.builder(redis.newNode())
                    .listener(events)
                    .closeTimeout(Duration.ofMillis(200))
                    .build();
            Lease lease = client.lock("r9:a2").acquire(Duration.ZERO);
            redis.makeUnavailable();
            // The unavailable in-memory backend fails a script at once: when releaseAsync returns, the
            // first attempt has failed and its resend waits on the timer, which close() then stops.
            CompletableFuture<Boolean> release = lease.releaseAsync();
            client.close();
            String outcome;
            try {
                outcome = release.handle((value, error) -> error == null ? "value " + value : "failed " + error)
                        .get(10, TimeUnit.SECONDS);
            } catch (TimeoutException hung) {
                outcome = "HUNG";
            }
            String report = "release future: " + outcome + ", state " + lease.state() + ", events " + events.all;
            assertFalse(
                    outcome.equals("HUNG"),
                    "the release of a lease during an outage never completes once close() "
                            + "drops its scheduled resend (a blocking lease.release() would hang forever): " + report);
            ok = true;
        } finally {
            record("A2 release during outage + close: release future completes", ok);
        }
    }

    // ---- A3: every moment of a hand-out, with cancel / close / expiry ------------------------------

    enum Action {
        NONE,
        CANCEL,
        CLOSE,
        EXPIRE,
        EXPIRE_AND_CANCEL
    }

    static Stream<Arguments> handOutMoments() {
        List<Arguments> cases = new ArrayList<>();
        for (Point point : Point.values()) {
            for (Action action : Action.values()) {
                boolean expiry = action == Action.EXPIRE || action == Action.EXPIRE_AND_CANCEL;
                if (expiry && point == Point.AFTER_ANNOUNCE) {
                    continue; // lost after the hand-out: a real loss, not a hand-out bug
                }
                cases.add(Arguments.of(point, action));
            }
        }
        return cases.stream();
    }

    private static final int HAND_OUT_RUNS = 8;

    /**
     * Two local waiters W1 (head) and W2 queue behind another node's holder; the holder releases, W1's
     * attempt wins, and its hand-out (on the callback executor) is parked at {@code point}, where the
     * test does {@code action}. Then: W1's future completes; the two acquisitions report exactly two
     * outcomes; no loss is reported; every announced lease ends once; a lease W1 receives is valid
     * and is the one in Redis; W2 is not blocked by a stale head (it gets the lock once W1 is done);
     * nothing is left in Redis.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("handOutMoments")
    void a3_handOutAtEveryMoment(Point point, Action action) throws Exception {
        List<String> failures = new ArrayList<>();
        for (int run = 0; run < HAND_OUT_RUNS; run++) {
            try {
                handOutOnce(point, action, run);
            } catch (AssertionError | Exception e) {
                failures.add("run " + run + ": " + e);
            }
        }
        record(
                "A3 hand-out " + point + " " + action + ": failed " + failures.size() + "/" + HAND_OUT_RUNS
                        + (failures.isEmpty() ? "" : " first: " + failures.get(0)),
                failures.isEmpty());
        assertEquals(List.of(), failures);
    }

    private void handOutOnce(Point point, Action action, int run) throws Exception {
        String name = "r9:a3:" + point + ":" + action + ":" + run;
        ManualClock clock = new ManualClock();
        PausingTicker ticker = new PausingTicker(clock, "r9-a3-cb");
        ExecutorService callbacks = Executors.newFixedThreadPool(2, TestThreads.daemon("r9-a3-cb"));
        Events events = new Events();
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .autoRenew(false)
                .build();
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock)) {
            LockClient holderClient =
                    LockClient.builder(redis.newNode()).ticker(clock).build();
            LockClient client = LockClient.builder(redis.newNode())
                    .ticker(ticker)
                    .callbackExecutor(callbacks)
                    .listener(events)
                    .build();
            try {
                Lease holder = holderClient.lock(name, options).acquire(Duration.ZERO);
                CompletableFuture<Lease> w1 = client.lock(name, options).acquireAsync(Duration.ofMinutes(5));
                Eventually.until("W1 queued", () -> events.count("waitStarted") == 1);
                CompletableFuture<Lease> w2 = client.lock(name, options).acquireAsync(Duration.ofMinutes(5));
                Eventually.until("W2 queued", () -> events.count("waitStarted") == 2);

                ticker.arm(point);
                assertTrue(holder.release());
                if (!ticker.awaitReached(10)) {
                    ticker.resume();
                    fail("the hand-out never reached " + point + "; events " + events.all);
                }
                Thread actor = null;
                switch (action) {
                    case CANCEL:
                        actor = start(() -> w1.cancel(false));
                        break;
                    case CLOSE:
                        actor = start(client::close);
                        break;
                    case EXPIRE:
                        clock.advance(Duration.ofSeconds(31));
                        break;
                    case EXPIRE_AND_CANCEL:
                        clock.advance(Duration.ofSeconds(31));
                        actor = start(() -> w1.cancel(false));
                        break;
                    default:
                        break;
                }
                Thread acting = actor;
                Eventually.until(
                        action + " acted, or waits on the paused hand-out",
                        () -> acting == null || !acting.isAlive() || acting.getState() != Thread.State.RUNNABLE);
                ticker.resume();
                if (actor != null) {
                    actor.join(15_000);
                    assertFalse(actor.isAlive(), action + " is stuck (deadlock?)");
                }
                Lease got = completed(w1, "W1", clock);
                if (got != null && action != Action.CLOSE) {
                    assertTrue(got.isValid(), "W1 received a valid lease: " + got);
                    assertEquals(
                            Optional.of(got.fencingToken()),
                            tokenInRedis(redis, name),
                            "W1's lease is the lock in Redis");
                    assertTrue(got.release(), "W1's release deleted its lock");
                }
                if (action == Action.CLOSE) {
                    completed(w2, "W2", clock);
                } else {
                    Lease second = completed(w2, "W2", clock);
                    assertTrue(second != null, "W2 got the lock after W1 was done (no stale head)");
                    assertTrue(second.release());
                    Eventually.until(
                            "both outcomes and endings heard",
                            () -> events.outcomes() == 2
                                    && events.count("released") + events.count("lost") == events.count("acquired"));
                }
            } finally {
                ticker.resume();
                client.close();
                holderClient.close();
                callbacks.shutdownNow();
            }
            // close() has let the event thread deliver everything queued: the counts are final
            assertEquals(2, events.outcomes(), "one outcome per acquisition: " + events.all);
            if (action != Action.CLOSE) {
                assertEquals(events.count("waitStarted"), events.count("waitEnded"), "waits balanced: " + events.all);
            }
            // A lease handed out and then ended by close() is lost, CLIENT_CLOSED (its holder is told);
            // nothing else may be.
            assertEquals(
                    List.of(),
                    events.losses.stream()
                            .filter(loss -> action != Action.CLOSE || loss.reason() != LeaseLoss.Reason.CLIENT_CLOSED)
                            .toList(),
                    "no lease was lost but by close(): " + events.all);
            assertFalse(redis.exists(lockKey(name)), "nothing left in Redis: " + redis.get(lockKey(name)));
        }
    }

    /**
     * A3's complement: the cancel or close lands while W1's hand-out task is still queued on the
     * (paused) callback executor, i.e. before handOut's first check. Same expectations as A3.
     */
    @ParameterizedTest
    @ValueSource(strings = {"CANCEL", "CLOSE"})
    void a3b_cancelOrCloseWhileTheHandOutIsQueued(String action) throws Exception {
        int runs = 15;
        List<String> failures = new ArrayList<>();
        for (int run = 0; run < runs; run++) {
            String name = "r9:a3b:" + action + ":" + run;
            ManualClock clock = new ManualClock();
            Events events = new Events();
            LockOptions options = LockOptions.builder()
                    .leaseTime(Duration.ofSeconds(30))
                    .autoRenew(false)
                    .build();
            try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock);
                    GateExecutor callbacks = new GateExecutor("r9-a3b-cb", 2)) {
                LockClient holderClient =
                        LockClient.builder(redis.newNode()).ticker(clock).build();
                LockClient client = LockClient.builder(redis.newNode())
                        .ticker(clock)
                        .callbackExecutor(callbacks)
                        .listener(events)
                        .build();
                try {
                    Lease holder = holderClient.lock(name, options).acquire(Duration.ZERO);
                    CompletableFuture<Lease> w1 = client.lock(name, options).acquireAsync(Duration.ofMinutes(5));
                    Eventually.until("W1 queued", () -> events.count("waitStarted") == 1);
                    CompletableFuture<Lease> w2 = client.lock(name, options).acquireAsync(Duration.ofMinutes(5));
                    Eventually.until("W2 queued", () -> events.count("waitStarted") == 2);
                    callbacks.pause();
                    assertTrue(holder.release());
                    Eventually.until("W1's hand-out is queued", () -> callbacks.parkedCount() >= 1);
                    if (action.equals("CANCEL")) {
                        w1.cancel(false);
                    } else {
                        client.close();
                    }
                    callbacks.resume();
                    Lease got = completed(w1, "W1", clock);
                    assertTrue(got == null, "W1 was cancelled or closed before its hand-out: " + got);
                    if (action.equals("CANCEL")) {
                        Lease second = completed(w2, "W2", clock);
                        assertTrue(second != null, "W2 got the lock after W1 gave up (no stale head)");
                        assertTrue(second.release());
                        Eventually.until(
                                "both outcomes", () -> events.outcomes() == 2 && events.count("released") == 1);
                    } else {
                        completed(w2, "W2", clock);
                    }
                } finally {
                    client.close();
                    holderClient.close();
                }
                // close() has let the event thread deliver everything queued: the counts are final
                assertEquals(2, events.outcomes(), "one outcome per acquisition: " + events.all);
                assertEquals(0, events.count("lost"), "no loss: " + events.all);
                assertFalse(redis.exists(lockKey(name)), "nothing left in Redis");
            } catch (AssertionError | Exception e) {
                failures.add("run " + run + ": " + e);
            }
        }
        record(
                "A3b hand-out queued + " + action + ": failed " + failures.size() + "/" + runs
                        + (failures.isEmpty() ? "" : " first: " + failures.get(0)),
                failures.isEmpty());
        assertEquals(List.of(), failures);
    }

    /** The lease {@code future} completes with, or null if it failed; moves the clock on while waiting. */
    private static Lease completed(CompletableFuture<Lease> future, String who, ManualClock clock) throws Exception {
        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!future.isDone() && System.nanoTime() - bound < 0) {
            clock.advance(Duration.ofMillis(100)); // fallback timers, if a release message was missed
            Thread.sleep(2);
        }
        assertTrue(future.isDone(), who + "'s future never completed");
        return future.handle((lease, error) -> lease).get();
    }

    private static Optional<Long> tokenInRedis(InMemoryLockBackend redis, String name) {
        return redis.get(lockKey(name)).map(value -> Long.parseLong(value.split(":")[1]));
    }

    private static Thread start(Runnable action) {
        Thread thread = new Thread(action, "r9-actor");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    // ---- A4: close() racing many hand-outs, default and user executors, with and without latency ----

    /**
     * Like CloseDuringHandOutTest, over more variants: each future completes; exactly one outcome per
     * acquisition; no loss; no lease received after close is still HELD; no lock key is left after
     * close plus the lease time (keys left right after close are reported, not asserted).
     */
    @ParameterizedTest
    @ValueSource(strings = {"default", "user", "default-latency", "user-latency"})
    void a4_closeRacingHandOuts(String variant) throws Exception {
        int rounds = 40;
        int acquisitions = 12;
        Duration leaseTime = Duration.ofMillis(600);
        List<String> failures = new ArrayList<>();
        int keysLeftRightAfterClose = 0;
        int leasesReceived = 0;
        ExecutorService user = Executors.newFixedThreadPool(3, TestThreads.daemon("r9-a4-cb"));
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            if (variant.endsWith("latency")) {
                redis.setLatency(Duration.ofMillis(1));
            }
            for (int round = 0; round < rounds; round++) {
                Events events = new Events();
                LockClient.Builder builder = LockClient.builder(redis.newNode()).listener(events);
                if (variant.startsWith("user")) {
                    builder.callbackExecutor(user);
                }
                LockClient client = builder.build();
                LockOptions options = LockOptions.builder().leaseTime(leaseTime).build();
                List<CompletableFuture<Lease>> futures = new ArrayList<>();
                List<String> names = new ArrayList<>();
                for (int i = 0; i < acquisitions; i++) {
                    String name = "r9:a4:" + variant + ":" + round + ":" + i;
                    names.add(name);
                    futures.add(client.lock(name, options).acquireAsync(Duration.ofSeconds(5)));
                }
                if (ThreadLocalRandom.current().nextBoolean()) {
                    Thread.sleep(ThreadLocalRandom.current()
                            .nextInt(3)); // jitter: close() lands at varied points of the hand-outs
                }
                client.close();
                for (int i = 0; i < acquisitions; i++) {
                    try {
                        Lease lease = futures.get(i).handle((l, e) -> l).get(10, TimeUnit.SECONDS);
                        if (lease != null) {
                            leasesReceived++;
                            if (lease.state() == LeaseState.HELD || lease.state() == LeaseState.UNCERTAIN) {
                                failures.add("round " + round + " " + names.get(i) + ": lease received after close is "
                                        + lease.state());
                            }
                        }
                    } catch (TimeoutException hung) {
                        failures.add("round " + round + " " + names.get(i) + ": future never completed");
                    }
                }
                for (String name : names) {
                    if (redis.exists(lockKey(name))) {
                        keysLeftRightAfterClose++; // close() waits for every release and clean-up: none
                        failures.add("round " + round + " " + name + ": lock key left right after close(): "
                                + redis.get(lockKey(name)));
                    }
                    List<String> seen = events.byName.getOrDefault(name, List.of());
                    if (seen.size() != 1) {
                        failures.add("round " + round + " " + name + ": outcomes " + seen);
                    }
                }
                // Leases handed out before close() are lost, CLIENT_CLOSED; no other loss.
                int thisRound = round;
                events.losses.stream()
                        .filter(loss -> loss.reason() != LeaseLoss.Reason.CLIENT_CLOSED)
                        .forEach(loss -> failures.add("round " + thisRound + ": loss " + loss));
                if (round % 10 == 9 || round == rounds - 1) {
                    long bound = System.nanoTime() + leaseTime.plusSeconds(5).toNanos();
                    while (lockKeysLeft(redis) != 0 && System.nanoTime() - bound < 0) {
                        Thread.sleep(20); // real TTLs run out: poll, within the lease time and a generous margin
                    }
                    long left = lockKeysLeft(redis);
                    if (left != 0) {
                        failures.add("round " + round + ": lock keys left after close + lease time: " + left);
                    }
                }
            }
        } finally {
            user.shutdownNow();
        }
        record(
                "A4 close racing hand-outs [" + variant + "]: " + rounds + " rounds x " + acquisitions + ", failures "
                        + failures.size() + (failures.isEmpty() ? "" : " first: " + failures.get(0))
                        + "; leases received "
                        + leasesReceived + ", lock keys left right after close " + keysLeftRightAfterClose
                        + " (expire after lease time)",
                failures.isEmpty());
        assertEquals(List.of(), failures);
    }

    // ---- A5: late reply pending, holder's release fails (outage) ------------------------------------

    /**
     * The late reply's clean-up waits for settled(); the holder's release then fails (Redis away).
     * Expect: the holder hears the failure, listeners hear exactly one ending (released), no loss; once
     * Redis is back the clean-up frees the lock well before its TTL.
     */
    @RepeatedTest(10)
    void a5_lateReplyThenReleaseDuringOutage() throws Exception {
        boolean ok = false;
        String name = "r9:a5";
        ManualClock clock = new ManualClock();
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock)) {
            GatedRepliesBackend gated = new GatedRepliesBackend(redis.newNode());
            Events events = new Events();
            LockClient client = LockClient.builder(gated)
                    .ticker(clock)
                    .commandTimeout(COMMAND_TIMEOUT)
                    .listener(events)
                    .build();
            try {
                Lease lease = leaseWonByARetry(
                        client,
                        gated,
                        clock,
                        name,
                        LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build());
                gated.completeHeldAcquireReply();
                redis.makeUnavailable();
                CompletableFuture<Boolean> release = lease.releaseAsync();
                advanceUntil(clock, release::isDone);
                assertTrue(release.isCompletedExceptionally(), "the release failed");
                assertEquals(LeaseState.RELEASED, lease.state());
                redis.makeAvailable();
                long before = clock.millis();
                advanceUntil(clock, () -> !redis.exists(lockKey(name)));
                assertTrue(clock.millis() - before < 10_000, "the clean-up freed the lock, not its TTL");
                Eventually.until("one ending", () -> events.count("released") == 1);
                client.close(); // lets the event thread deliver everything queued: the counts are final
                assertEquals(1, events.count("acquired"));
                assertEquals(1, events.count("released"), "one ending: " + events.all);
                assertEquals(0, events.count("lost"), "no loss: " + events.all);
                ok = true;
            } finally {
                client.close();
                record("A5 late reply + release during outage", ok);
            }
        }
    }

    // ---- A6: late reply pending, lease never released, client closed -----------------------------

    /**
     * The lease is ended by close(): lost, CLIENT_CLOSED (its holder told), settled completes, its
     * release and the deferred clean-up run, nothing is left.
     */
    @RepeatedTest(10)
    void a6_lateReplyThenCloseWithoutRelease() throws Exception {
        boolean ok = false;
        String name = "r9:a6";
        ManualClock clock = new ManualClock();
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock)) {
            GatedRepliesBackend gated = new GatedRepliesBackend(redis.newNode());
            Events events = new Events();
            LockClient client = LockClient.builder(gated)
                    .ticker(clock)
                    .commandTimeout(COMMAND_TIMEOUT)
                    .listener(events)
                    .build();
            try {
                Lease lease = leaseWonByARetry(
                        client,
                        gated,
                        clock,
                        name,
                        LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build());
                gated.completeHeldAcquireReply();
                client.close();
                assertEquals(LeaseState.LOST, lease.state());
                assertEquals(
                        LeaseLoss.Reason.CLIENT_CLOSED,
                        lease.lost().get(10, TimeUnit.SECONDS).reason());
                assertFalse(redis.exists(lockKey(name)), "nothing left after close");
                assertEquals(
                        2, gated.releases.size(), "the holder's release and the deferred clean-up: " + gated.releases);
                assertEquals(
                        List.of(LeaseLoss.Reason.CLIENT_CLOSED),
                        events.losses.stream().map(LeaseLoss::reason).toList(),
                        "one ending, a loss by close(): " + events.all);
                ok = true;
            } finally {
                client.close();
                record("A6 late reply + close without release", ok);
            }
        }
    }

    private static long lockKeysLeft(InMemoryLockBackend redis) {
        return redis.keys().stream().filter(k -> !k.endsWith(":fence")).count();
    }

    private static void advanceUntil(ManualClock clock, BooleanSupplier done) throws InterruptedException {
        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!done.getAsBoolean() && System.nanoTime() - bound < 0) {
            clock.advance(Duration.ofMillis(100));
            Thread.sleep(2);
        }
        assertTrue(done.getAsBoolean(), "condition reached while moving the clock");
    }

    // ---- helpers ------------------------------------------------------------------------------------

    private static synchronized void record(String line, boolean passed) {
        try {
            Files.createDirectories(RESULTS.getParent());
            Files.writeString(
                    RESULTS,
                    (passed ? "PASS " : "FAIL ") + line + System.lineSeparator(),
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** All events in order, outcomes by lock name, losses. */
    static final class Events implements LockEventListener {
        final List<String> all = new CopyOnWriteArrayList<>();
        final Map<String, List<String>> byName = new ConcurrentHashMap<>();
        final List<LeaseLoss> losses = new CopyOnWriteArrayList<>();

        @Override
        public void onAcquired(String lockName, long fencingToken, Duration waited) {
            all.add("acquired");
            outcome(lockName, "acquired");
        }

        @Override
        public void onAcquireFailed(String lockName, LockException failure, Duration waited) {
            all.add("failed");
            outcome(lockName, "failed");
        }

        @Override
        public void onAcquireCancelled(String lockName, Duration waited) {
            all.add("cancelled");
            outcome(lockName, "cancelled");
        }

        @Override
        public void onReleased(String lockName, long fencingToken, Duration heldFor) {
            all.add("released");
        }

        @Override
        public void onLeaseLost(LeaseLoss loss) {
            all.add("lost");
            losses.add(loss);
        }

        @Override
        public void onWaitStarted(String lockName) {
            all.add("waitStarted");
        }

        @Override
        public void onWaitEnded(String lockName, Duration waited) {
            all.add("waitEnded");
        }

        private void outcome(String name, String what) {
            byName.computeIfAbsent(name, ignored -> new CopyOnWriteArrayList<>())
                    .add(what);
        }

        long count(String event) {
            return all.stream().filter(event::equals).count();
        }

        long outcomes() {
            return count("acquired") + count("failed") + count("cancelled");
        }
    }
}
