package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.driver.AcquisitionEventTally;
import io.leasehold.lock.testkit.driver.Eventually;
import io.leasehold.lock.testkit.driver.ExclusiveSection;
import io.leasehold.lock.testkit.driver.TrackedAcquisition;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Adversarial tests (by a reviewer who did not write it) of the acquisition rewritten as a state
 * machine (commit 9878700): many waiters in several clients on one name, with random cancellations
 * at every moment, random short waits that time out, and acquire calls (plain attempts and handoffs)
 * whose replies come late, get lost, or fail transiently. Checked throughout: never two holders at
 * once (a shared counter and rising fencing tokens), every acquisition ends (no hang), each reports
 * one outcome to the listeners and a paired wait start and end, and once everything has ended nothing
 * is left in the store and no subscription outlives the linger time.
 *
 * <p>Runs on the real clock over the in-memory store; no step waits on a sleep, every wait is a
 * bounded future or {@link Eventually}.
 */
class AcquisitionMachineAttackTest {

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);
    /** Longer than a run takes, shorter than the lease: a run that took this long left a lock to expire. */
    private static final long LEASE_LEFT_TO_EXPIRE_MS = 15_000;
    /** Long enough that no lease can run out while its short work runs, short enough to tell a leftover from a release. */
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(20))
            .autoRenew(false)
            .build();

    private final InMemoryLockBackend redis = new InMemoryLockBackend();
    private final ScheduledExecutorService delays = Executors.newScheduledThreadPool(2, TestThreads.daemon("chaos"));
    private final ExecutorService workers = Executors.newFixedThreadPool(4, TestThreads.daemon("holder-work"));
    private final List<LockClient> clients = new ArrayList<>();

    @AfterEach
    void tearDown() {
        for (LockClient c : clients) {
            c.close();
        }
        delays.shutdownNow();
        workers.shutdownNow();
        redis.close();
    }

    /**
     * The main chaos run: 3 clients, 14 acquisitions each on one name, a quarter of the acquire calls
     * (attempts and handoffs) disturbed.
     */
    @RepeatedTest(4)
    void shouldKeepEveryPromiseUnderCancellationsTimeoutsAndDisturbedAcquireReplies() throws Exception {
        runChaos("chaos:all-" + ThreadLocalRandom.current().nextInt(1_000_000), true, true, 3, 14);
    }

    /** Only plain attempts disturbed (handoffs clean, so every release is confirmed and leaves nothing). */
    @RepeatedTest(4)
    void shouldLeaveNothingBehindWhenOnlyAttemptsAreDisturbed() throws Exception {
        runChaos("chaos:attempts-" + ThreadLocalRandom.current().nextInt(1_000_000), true, false, 3, 14);
    }

    /** Only handoffs disturbed: their late replies, lost replies and resends against cancels and timeouts. */
    @RepeatedTest(4)
    void shouldKeepEveryPromiseWhenOnlyHandoffsAreDisturbed() throws Exception {
        runChaos("chaos:handoffs-" + ThreadLocalRandom.current().nextInt(1_000_000), false, true, 3, 14);
    }

    /**
     * One client passing the lock among many of its own waiters (so it yields every 8th handoff) while
     * two other clients wait too, nobody cancels and every wait is long: each waiter gets the lock, and
     * the whole run takes far less than one wait (no waiter sits out its deadline, none starves).
     */
    @RepeatedTest(4)
    void shouldServeEveryWaiterPromptlyAcrossYieldsWithoutDisturbance() throws Exception {
        String name = "chaos:yield-" + ThreadLocalRandom.current().nextInt(1_000_000);
        Run run = new Run(name);
        ChaosBackend a = run.client(false, false);
        ChaosBackend b = run.client(false, false);
        ChaosBackend c = run.client(false, false);
        Lease first = run.acquireFirst(a);
        List<TrackedAcquisition> all = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            all.add(run.start(run.clientOf(a), Duration.ofSeconds(60), -1));
        }
        for (int i = 0; i < 4; i++) {
            all.add(run.start(run.clientOf(b), Duration.ofSeconds(60), -1));
            all.add(run.start(run.clientOf(c), Duration.ofSeconds(60), -1));
        }
        Eventually.until("every client queued", () -> redis.subscriberCount(channel(name)) == 3);
        long t0 = System.nanoTime();
        run.releaseFirst(first);
        for (TrackedAcquisition acq : all) {
            Object outcome = acq.outcome(Duration.ofSeconds(45));
            assertTrue(outcome instanceof Long, "every waiter gets the lock; got " + outcome + "; " + run.summary());
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        // 32 leases of a few ms each, a step-back of at most 50 ms per yield (4 yields): far under 20 s
        assertTrue(tookMs < 20_000, "all 32 waiters served in " + tookMs + " ms; " + run.summary());
        run.checkEnd();
    }

    /**
     * A client closes at a random moment while its waiters queue, attempts and handoffs are in flight
     * and a quarter of the plain attempts are disturbed: each of its acquisitions ends, the other
     * clients' waiters all get the lock (nothing of the closed client is left holding it), and nothing
     * is left in the store at the end.
     */
    @RepeatedTest(6)
    void shouldLetTheOtherClientsOnWhenOneClosesInTheMiddleOfHandoffsAndHandOuts() throws Exception {
        String name = "chaos:close-" + ThreadLocalRandom.current().nextInt(1_000_000);
        Run run = new Run(name);
        ChaosBackend closing = run.client(true, false);
        ChaosBackend b = run.client(true, false);
        ChaosBackend c = run.client(true, false);
        LockClient closingClient = run.clientOf(closing);
        run.exempt.add(closingClient);
        Lease first = run.acquireFirst(b);
        List<TrackedAcquisition> survivors = new ArrayList<>();
        List<TrackedAcquisition> closed = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            closed.add(run.start(closingClient, Duration.ofSeconds(60), -1));
            survivors.add(run.start(run.clientOf(b), Duration.ofSeconds(60), -1));
            survivors.add(run.start(run.clientOf(c), Duration.ofSeconds(60), -1));
        }
        Eventually.until("every client queued", () -> redis.subscriberCount(channel(name)) == 3);
        run.releaseFirst(first);
        CompletableFuture<Void> closedAt = new CompletableFuture<>();
        delays.schedule(
                () -> {
                    try {
                        closingClient.close();
                        closedAt.complete(null);
                    } catch (Throwable t) {
                        closedAt.completeExceptionally(t);
                    }
                },
                20 + ThreadLocalRandom.current().nextInt(200),
                TimeUnit.MILLISECONDS);
        closedAt.get(30, TimeUnit.SECONDS);
        for (TrackedAcquisition acq : closed) {
            Object outcome = acq.outcome(Duration.ofSeconds(30));
            if (outcome instanceof Throwable t && !(t instanceof IllegalStateException)) {
                fail("the closed client's acquisition ended with " + t, t);
            }
        }
        for (TrackedAcquisition acq : survivors) {
            Object outcome = acq.outcome(Duration.ofSeconds(60));
            assertTrue(
                    outcome instanceof Long,
                    "every other client's waiter gets the lock; got " + outcome + "; " + run.summary() + "; store "
                            + redis.keys());
        }
        closing.calm();
        b.calm();
        c.calm();
        run.checkEnd();
    }

    private void runChaos(String name, boolean disturbAttempts, boolean disturbHandoffs, int clientCount, int perClient)
            throws Exception {
        Run run = new Run(name);
        List<ChaosBackend> backends = new ArrayList<>();
        for (int i = 0; i < clientCount; i++) {
            backends.add(run.client(disturbAttempts, disturbHandoffs));
        }
        // A holder so that the first wave queues, then lets go.
        Lease first = run.acquireFirst(backends.get(0));
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<TrackedAcquisition> all = new ArrayList<>();
        for (int i = 0; i < perClient; i++) {
            for (ChaosBackend backend : backends) {
                int kind = random.nextInt(10);
                Duration wait;
                long cancelAfterMs = -1;
                if (kind < 2) {
                    wait = Duration.ofMillis(20 + random.nextInt(400)); // may time out
                } else if (kind < 5) {
                    wait = Duration.ofSeconds(60);
                    cancelAfterMs = random.nextInt(4) == 0 ? 0 : random.nextInt(600); // 0: before the send
                } else if (kind == 5) {
                    wait = Duration.ZERO;
                } else {
                    wait = Duration.ofSeconds(60);
                }
                all.add(run.start(run.clientOf(backend), wait, cancelAfterMs));
            }
        }
        long released = System.nanoTime();
        run.releaseFirst(first);
        for (TrackedAcquisition acq : all) {
            Object outcome = acq.outcome(acq.waitTime().plus(Duration.ofSeconds(40)));
            if (outcome instanceof Throwable t
                    && !(t instanceof CancellationException)
                    && !(t instanceof LockTimeoutException)
                    && !(t instanceof io.leasehold.lock.LockBackendException)) {
                fail("unexpected outcome " + t + "; " + run.summary(), t);
            }
            if (acq.mustGetTheLock() && !(outcome instanceof Long)) {
                // 42 short leases, disturbed calls cost at most a command timeout and a back-off each
                fail("a waiter with a 60 s wait and no cancel did not get the lock: " + outcome + "; " + run.summary());
            }
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        if (!disturbHandoffs) {
            // Every release is confirmed: no lock is ever left to its TTL. A lost reply of an attempt
            // that took the lock costs its waiter a back-off, never the 20 s lease (a run takes 1-7 s,
            // also with both cores busy).
            assertTrue(
                    tookMs < LEASE_LEFT_TO_EXPIRE_MS, "every acquisition ended in " + tookMs + " ms; " + run.summary());
        }
        for (ChaosBackend backend : backends) {
            backend.calm();
        }
        run.checkEnd();
        int handoffsDisturbed =
                backends.stream().mapToInt(b -> b.handoffsDisturbed.get()).sum();
        int attemptsDisturbed =
                backends.stream().mapToInt(b -> b.attemptsDisturbed.get()).sum();
        if (disturbHandoffs) {
            assertTrue(
                    handoffsDisturbed > 0,
                    "no handoff was disturbed: the run proved nothing about them; " + run.summary());
        } else {
            assertEquals(0, handoffsDisturbed, "handoffs disturbed in a run that keeps them clean");
        }
        if (disturbAttempts) {
            assertTrue(attemptsDisturbed > 0, "no attempt was disturbed; " + run.summary());
        } else {
            assertEquals(0, attemptsDisturbed, "attempts disturbed in a run that keeps them clean");
        }
    }

    // ---- the run ----------------------------------------------------------------------------------

    private final class Run {
        final String name;
        final Map<ChaosBackend, LockClient> byBackend = new ConcurrentHashMap<>();
        final Map<LockClient, AcquisitionEventTally> events = new ConcurrentHashMap<>();
        final ExclusiveSection section = new ExclusiveSection();
        /** Clients whose holders are not counted (a client that closes: close() releases its leases under their work). */
        final java.util.Set<LockClient> exempt = ConcurrentHashMap.newKeySet();

        Run(String name) {
            this.name = name;
        }

        ChaosBackend client(boolean disturbAttempts, boolean disturbHandoffs) {
            ChaosBackend backend = new ChaosBackend(redis.newNode(), delays, disturbAttempts, disturbHandoffs);
            AcquisitionEventTally tally = new AcquisitionEventTally();
            LockClient c = LockClient.builder(backend)
                    .commandTimeout(COMMAND_TIMEOUT)
                    .listener(tally)
                    .build();
            clients.add(c);
            byBackend.put(backend, c);
            events.put(c, tally);
            return backend;
        }

        LockClient clientOf(ChaosBackend backend) {
            return byBackend.get(backend);
        }

        Lease acquireFirst(ChaosBackend backend) {
            LockClient c = clientOf(backend);
            events.get(c).acquisitionStarted();
            return c.lock(name, OPTIONS).acquire(Duration.ofSeconds(30));
        }

        void releaseFirst(Lease first) {
            section.enter(first.fencingToken());
            section.leave();
            releaseQuietly(first);
        }

        /** A handoff whose replies were all lost ends its release unconfirmed: legitimate under this chaos. */
        void releaseQuietly(Lease lease) {
            try {
                lease.release();
            } catch (io.leasehold.lock.ReleaseUnconfirmedException unconfirmed) {
                // counted by the listener; the lock then expires on its own, and checkEnd allows it
            }
        }

        TrackedAcquisition start(LockClient c, Duration wait, long cancelAfterMs) {
            events.get(c).acquisitionStarted();
            return TrackedAcquisition.start(
                    c.lock(name, OPTIONS), wait, cancelAfterMs, delays, workers, section, lease -> {
                        if (exempt.contains(c)) {
                            Thread.sleep(ThreadLocalRandom.current().nextInt(4));
                            try {
                                lease.release();
                            } catch (RuntimeException afterClose) {
                                // its client closed: close() released it
                            }
                            return;
                        }
                        section.enter(lease.fencingToken());
                        Thread.sleep(ThreadLocalRandom.current().nextInt(4)); // the holder's work
                        section.leave();
                        releaseQuietly(lease);
                    });
        }

        /** Everything has ended: no violation, listener events consistent, nothing left, no lingering subscription. */
        void checkEnd() {
            assertEquals(List.of(), section.violations(), "violations");
            for (Map.Entry<LockClient, AcquisitionEventTally> e : events.entrySet()) {
                if (exempt.contains(e.getKey())) {
                    continue;
                }
                AcquisitionEventTally tally = e.getValue();
                Eventually.until(
                        () -> "each acquisition reports one outcome and its wait end: " + tally, tally::settled);
            }
            boolean unconfirmed = events.values().stream().anyMatch(tally -> tally.unconfirmedReleases() > 0);
            if (!unconfirmed) {
                Eventually.until(
                        () -> "nothing left in the store: " + redis.keys() + "; " + summary(),
                        () -> !redis.exists(LockKeys.lockKey(PREFIX, name)));
            }
            Eventually.until(
                    () -> "no subscription lingers past the linger time: " + redis.subscriberCount(channel(name)),
                    () -> redis.subscriberCount(channel(name)) == 0);
            for (AcquisitionEventTally tally : events.values()) {
                assertEquals(List.of(), tally.oddities(), "listener oddities");
            }
        }

        String summary() {
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<ChaosBackend, LockClient> e : byBackend.entrySet()) {
                sb.append("[client ")
                        .append(events.get(e.getValue()))
                        .append(", chaos ")
                        .append(e.getKey().tally)
                        .append("] ");
            }
            return sb.toString();
        }
    }

    private static String channel(String name) {
        return LockKeys.releaseChannel(PREFIX, name);
    }

    /**
     * Disturbs acquire.lua calls (plain attempts) and handoff.lua calls (handoffs): a quarter of them
     * fail before running, lose their reply after running (transient failure or no answer at all), or
     * answer after the command timeout; the first handoff of a run that disturbs handoffs always. Other
     * scripts pass untouched.
     */
    static final class ChaosBackend extends ForwardingLockBackend {

        final Map<String, AtomicInteger> tally = new ConcurrentHashMap<>();
        /** Handoffs and plain attempts that failed, lost their reply or answered late. */
        final AtomicInteger handoffsDisturbed = new AtomicInteger();

        final AtomicInteger attemptsDisturbed = new AtomicInteger();
        private final ScheduledExecutorService delays;
        private final boolean attempts;
        private final boolean handoffs;
        private volatile boolean calm;

        ChaosBackend(
                InMemoryLockBackend delegate, ScheduledExecutorService delays, boolean attempts, boolean handoffs) {
            super(delegate);
            this.delays = delays;
            this.attempts = attempts;
            this.handoffs = handoffs;
        }

        void calm() {
            calm = true;
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            return eval(script, keys, args, () -> {});
        }

        @Override
        public CompletableFuture<Object> eval(
                LuaScript script, List<String> keys, List<String> args, Runnable writing) {
            boolean handoff = script.name().equals(ScriptNames.HANDOFF);
            boolean acquire = handoff || script.name().equals(ScriptNames.ACQUIRE);
            boolean disturb = !calm && acquire && (handoff ? handoffs : attempts);
            int dice = disturb ? ThreadLocalRandom.current().nextInt(100) : 99;
            if (handoff) {
                count("handoff calls");
            }
            if (disturb && (handoff ? handoffsDisturbed : attemptsDisturbed).get() == 0) {
                // the first one of its kind always: the run proves something (a release grants the
                // lock to a queued waiter, so a run may make few attempts of its own)
                dice = ThreadLocalRandom.current().nextInt(25);
            }
            if (disturb && dice < 25) {
                (handoff ? handoffsDisturbed : attemptsDisturbed).incrementAndGet();
            }
            writing.run();
            if (dice < 6) {
                count("failed before running");
                return CompletableFuture.failedFuture(new SocketException("chaos: connection refused"));
            }
            CompletableFuture<Object> ran = super.eval(script, keys, args);
            if (dice < 12) {
                count("reply lost (reset)");
                return ran.thenCompose(
                        r -> CompletableFuture.failedFuture(new SocketException("chaos: reset after run")));
            }
            if (dice < 17) {
                count("no reply at all");
                return new CompletableFuture<>();
            }
            if (dice < 25) {
                count("late reply");
                CompletableFuture<Object> late = new CompletableFuture<>();
                long delayMs = COMMAND_TIMEOUT.toMillis()
                        + 50
                        + ThreadLocalRandom.current().nextInt(300);
                ran.whenComplete((r, e) -> delays.schedule(
                        () -> {
                            if (e != null) {
                                late.completeExceptionally(e);
                            } else {
                                late.complete(r);
                            }
                        },
                        delayMs,
                        TimeUnit.MILLISECONDS));
                return late;
            }
            if (dice < 40) {
                count("delayed within the timeout");
                CompletableFuture<Object> slow = new CompletableFuture<>();
                ran.whenComplete((r, e) -> delays.schedule(
                        () -> {
                            if (e != null) {
                                slow.completeExceptionally(e);
                            } else {
                                slow.complete(r);
                            }
                        },
                        ThreadLocalRandom.current().nextInt(40),
                        TimeUnit.MILLISECONDS));
                return slow;
            }
            return ran;
        }

        private void count(String what) {
            tally.computeIfAbsent(what, k -> new AtomicInteger()).incrementAndGet();
        }
    }
}
