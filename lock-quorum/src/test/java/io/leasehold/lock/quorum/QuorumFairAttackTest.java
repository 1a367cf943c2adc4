package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.ReleaseUnconfirmedException;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Attacks on fairLock over a quorum of three real {@code redis-server}s (Lettuce members), each
 * client a QuorumBackend of its own (as separate applications would build them).
 */
class QuorumFairAttackTest {

    private static final String PREFIX = "leasehold:";

    private final List<LockClient> clients = new ArrayList<>();
    private final List<FaultProxy> proxies = new ArrayList<>();
    private QuorumFixture fixture;

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
        proxies.forEach(FaultProxy::close);
        if (fixture != null) {
            fixture.close();
        }
    }

    private LockClient client() {
        LockClient client = LockClient.builder(QuorumBackend.of(fixture.members().stream()
                        .map(LockBackendFixture::newBackend)
                        .toList()))
                .build();
        clients.add(client);
        return client;
    }

    /** A client whose link to each member goes through a proxy of its own ({@code links}, in member order). */
    private record Proxied(LockClient client, List<FaultProxy> links) {}

    private Proxied proxiedClient(String name) {
        List<FaultProxy> mine = new ArrayList<>();
        List<io.leasehold.lock.spi.LockBackend> backends = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            FaultProxy proxy = FaultProxy.start(node(i, name).endpoint());
            proxies.add(proxy);
            mine.add(proxy);
            backends.add(RedisMembers.member("lettuce", proxy.endpoint()));
        }
        LockClient client = LockClient.builder(QuorumBackend.of(backends)).build();
        clients.add(client);
        return new Proxied(client, mine);
    }

    /** {@link #proxiedClient}, with every member enlisted by a first acquisition (of another lock). */
    private Proxied enlistedProxiedClient(String name) {
        Proxied proxied = proxiedClient(name);
        enlistEveryMember(proxied.client());
        return proxied;
    }

    /** A first acquisition (of another lock), so that {@code client} has enlisted every member. */
    private static void enlistEveryMember(LockClient client) {
        client.fairLock("warm-up").acquire(Duration.ofSeconds(10)).release();
    }

    /** A new client's fair lease on {@code name}, held until released: the holder the waiters queue behind. */
    private Lease heldByANewClient(String name) {
        return client().fairLock(name).acquire(Duration.ofSeconds(10));
    }

    /**
     * Waits until {@code count} waiters are queued across the members and every waiter has the same
     * ticket on each member that queues it (its chosen ticket written back by its second call).
     */
    private void awaitTicketsAgree(String name, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            java.util.Map<String, java.util.Set<String>> scores = new java.util.HashMap<>();
            for (int m = 0; m < 3; m++) {
                List<?> flat = (List<?>)
                        node(m, name).command("ZRANGE", LockKeys.quorumQueueKey(PREFIX, name), "0", "-1", "WITHSCORES");
                for (int i = 0; i + 1 < flat.size(); i += 2) {
                    scores.computeIfAbsent(String.valueOf(flat.get(i)), k -> new java.util.HashSet<>())
                            .add(String.valueOf(flat.get(i + 1)));
                }
            }
            if (scores.size() == count && scores.values().stream().allMatch(v -> v.size() == 1)) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "tickets never agreed: " + scores);
            Thread.sleep(20);
        }
    }

    private RedisNode node(int i, String name) {
        return ((RedisLockBackendFixture<?>) fixture.members().get(i))
                .topology()
                .masterForKey(LockKeys.lockKey(PREFIX, name));
    }

    private long queued(int member, String name) {
        Object n = node(member, name).command("ZCARD", LockKeys.quorumQueueKey(PREFIX, name));
        return ((Number) n).longValue();
    }

    private void awaitQueued(String name, long count, int... onMembers) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            boolean all = true;
            for (int m : onMembers) {
                all &= queued(m, name) == count;
            }
            if (all) {
                return;
            }
            assertTrue(
                    System.nanoTime() < deadline,
                    "never queued " + count + " on every member of " + List.of(onMembers));
            Thread.sleep(20);
        }
    }

    /**
     * A history of grants: at most one holder at a time, and each grant's token above every earlier one;
     * with the fair waits that record into it ({@link #takeOnce}), in the order they were served.
     */
    private static final class History {
        final AtomicInteger holders = new AtomicInteger();
        final AtomicLong lastToken = new AtomicLong();
        final List<String> violations = new CopyOnWriteArrayList<>();
        final List<String> grants = new CopyOnWriteArrayList<>();
        final List<String> served = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<Void>> waits = new ArrayList<>();

        /** Per grant in {@link #grants}' order, when its acquisition was asked for (System.nanoTime()), if known. */
        final List<Long> joined = new CopyOnWriteArrayList<>();

        synchronized void granted(String who, long token) {
            granted(who, token, Long.MIN_VALUE);
        }

        /** {@link #granted(String, long)} of an acquisition asked for at {@code joinedNanos}. */
        synchronized void granted(String who, long token, long joinedNanos) {
            joined.add(joinedNanos);
            if (holders.incrementAndGet() != 1) {
                violations.add("two holders at " + who + " token " + token);
            }
            if (token <= lastToken.get()) {
                violations.add(who + " token " + token + " not above " + lastToken.get());
            }
            lastToken.set(token);
            grants.add(who + "@" + token);
        }

        void releasing() {
            holders.decrementAndGet();
        }

        /** Set just before the fault strikes: from then on a member that held a lease may be down. */
        volatile boolean faulted;

        final List<String> unconfirmed = new CopyOnWriteArrayList<>();

        /**
         * {@code who}'s release could not be confirmed: honest only once a member is down (its lease lived
         * on exactly a majority, one of whose members the fault took) and only as the quorum's answer that
         * no majority could confirm it, never a timeout (the engine's and a dead member's raced before).
         */
        void unconfirmed(String who, ReleaseUnconfirmedException e) {
            unconfirmed.add(who);
            Throwable cause = e.getCause();
            boolean quorumsAnswer = cause != null
                    && String.valueOf(cause.getMessage())
                            .contains("no majority of the quorum could confirm the release");
            if (!faulted || !quorumsAnswer) {
                violations.add(who + "'s release unconfirmed " + (faulted ? "" : "with every member up ") + e
                        + " caused by " + cause);
            }
        }

        /**
         * {@code client}'s fair wait for {@code name} as {@code who}, kept in {@link #waits}: once granted,
         * recorded and added to {@link #served}, then released.
         */
        void takeOnce(LockClient client, String name, String who) {
            takeOnce(client, name, who, () -> {});
        }

        /** {@link #takeOnce(LockClient, String, String)}, running {@code beforeRelease} just before the release. */
        void takeOnce(LockClient client, String name, String who, Runnable beforeRelease) {
            waits.add(client.fairLock(name).acquireAsync(Duration.ofSeconds(60)).thenAccept(lease -> {
                granted(who, lease.fencingToken());
                served.add(who);
                releasing();
                beforeRelease.run();
                lease.release();
            }));
        }

        /** Waits for every wait of {@link #takeOnce} to end. */
        void awaitAll(long seconds) throws Exception {
            CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(seconds, TimeUnit.SECONDS);
        }
    }

    /**
     * Claims (a) and (c): four clients each take a fair lock 15 times over; a member of the quorum
     * restarts without persistence (its queue and lock lost) after a few grants. Every acquisition is
     * served within a generous deadline, never two holders, tokens rise along the grant order.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldKeepServingFairWaitersOneAtATimeWithRisingTokensWhileAMemberRestartsEmpty(String driver)
            throws Exception {
        fixture = RedisMembers.of(driver, 3);
        contend("attack:restart", 4, 15, history -> node(0, "attack:restart").restart());
    }

    /**
     * Claims (a) and (c) on a quorum of five: one member killed for good and another restarted empty
     * (a minority of two gone at once), while four clients contend. A holder whose lease lived on exactly
     * a majority that included the killed member cannot have its release confirmed (the waiters' phase-1
     * grants hold the other members): that release is reported unconfirmed at once by the quorum.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldKeepServingFairWaitersOnAQuorumOfFiveWithOneMemberKilledAndAnotherRestartedEmpty(String driver)
            throws Exception {
        fixture = RedisMembers.of(driver, 5);
        String name = "attack:five";
        contend(name, 4, 12, history -> {
            node(4, name).kill();
            node(0, name).restart();
        });
    }

    private void contend(String name, int clientCount, int perClient, java.util.function.Consumer<History> fault)
            throws Exception {
        History history = new History();
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(10))
                .autoRenew(false)
                .build();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(clientCount);
        LockClient first = client();
        Lease gate = first.fairLock(name, options).acquire(Duration.ofSeconds(10)); // all start behind it
        try {
            for (int c = 0; c < clientCount; c++) {
                LockClient client = client();
                String who = "client" + c;
                runs.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < perClient; i++) {
                                long joined = System.nanoTime();
                                Lease lease = client.fairLock(name, options).acquire(Duration.ofSeconds(60));
                                history.granted(who + "#" + i, lease.fencingToken(), joined);
                                try {
                                    Thread.sleep(20); // the holder's work: a window for a second holder to show
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                                history.releasing();
                                try {
                                    lease.release();
                                } catch (ReleaseUnconfirmedException e) {
                                    history.unconfirmed(who + "#" + i, e);
                                }
                            }
                        },
                        threads));
                awaitQueued(name, c + 1, 0, 1, 2);
            }
            assertTrue(gate.release());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (history.grants.size() < 2 * clientCount && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            history.faulted = true;
            fault.accept(history);
            CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(150, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
        assertEquals(
                List.of(),
                history.violations,
                "grants: " + history.grants + ", unconfirmed releases: " + history.unconfirmed);
        assertEquals(clientCount * perClient, history.grants.size());
        assertServedInTheOrderAskedFor(history);
    }

    /**
     * How much later than another an acquisition must have been asked for to count as behind it in
     * line: a waiter's place is taken by its first call reaching the members, a few milliseconds
     * after the ask on a quiet machine, tens on a loaded one; a waiter that lost its place (resends
     * keeping it past its turn, a dropped place) is passed by every waiter that asks while it is out of
     * line (for seconds in the failures seen). A pass by a waiter that asked less than this later is
     * not told from that race.
     */
    private static final long SAME_MOMENT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * FIFO: no acquisition is granted before one that was asked for more than {@link #SAME_MOMENT_NANOS}
     * earlier and was still waiting. (Compared by when each was asked for, not by turns: a client whose
     * thread is slow between its release and its next ask rightly joins behind a client that asked
     * meanwhile, which a "one grant each per round" rule would call unfair.)
     */
    private static void assertServedInTheOrderAskedFor(History history) {
        for (int later = 0; later < history.grants.size(); later++) {
            for (int earlier = later + 1; earlier < history.grants.size(); earlier++) {
                long askedEarlier = history.joined.get(earlier);
                long askedLater = history.joined.get(later);
                if (askedEarlier != Long.MIN_VALUE && askedLater - askedEarlier > SAME_MOMENT_NANOS) {
                    throw new AssertionError(history.grants.get(later) + " (grant " + later + ") was served before "
                            + history.grants.get(earlier) + " (grant " + earlier + "), which had been waiting "
                            + TimeUnit.NANOSECONDS.toMillis(askedLater - askedEarlier) + " ms longer: "
                            + history.grants);
                }
            }
        }
    }

    /**
     * Claim (e): a waiter that gave up (tryAcquire ran out) ahead of a live waiter blocks the queue no
     * longer than ~2 s: once the holder released, the live waiter is granted within 2.5 s of the
     * given-up waiter's last call.
     */
    @Test
    void shouldServeTheWaiterBehindAGivenUpWaiterWithinTwoAndAHalfSecondsOfItsLastCall() throws Exception {
        fixture = RedisMembers.lettuce(3);
        String name = "attack:given-up";
        LockClient quitter = client();
        LockClient patient = client();
        Lease held = heldByANewClient(name);
        CompletableFuture<Optional<Lease>> gaveUp = quitter.fairLock(name).tryAcquireAsync(Duration.ofSeconds(3));
        awaitQueued(name, 1, 0, 1, 2);
        CompletableFuture<Lease> served = patient.fairLock(name).acquireAsync(Duration.ofSeconds(30));
        awaitQueued(name, 2, 0, 1, 2);
        assertFalse(gaveUp.get(20, TimeUnit.SECONDS).isPresent(), "the quitter gave up");
        long gaveUpAt = System.nanoTime();
        assertTrue(held.release());
        Lease lease = served.get(30, TimeUnit.SECONDS);
        long afterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - gaveUpAt);
        assertTrue(afterMs <= 2_500, "served " + afterMs + " ms after the quitter's give-up");
        lease.release();
    }

    /**
     * Claim (b) with a slow member (SIGSTOP'd, a minority): waiters queued one after the other (each
     * once the one before it is queued on the two live members) are served in that order, also once
     * the frozen member resumes and runs their buffered calls.
     */
    @Test
    void shouldServeWaitersInTheirOrderWhileAMemberIsFrozenAndAfterItResumes() throws Exception {
        fixture = RedisMembers.lettuce(3);
        String name = "attack:frozen";
        Lease held = heldByANewClient(name);
        node(2, name).pause();
        History history = new History();
        for (int i = 0; i < 4; i++) {
            String who = "waiter" + i;
            history.takeOnce(client(), name, who, () -> {
                if (who.equals("waiter0")) {
                    node(2, name).resume();
                }
            });
            awaitQueued(name, i + 1, 0, 1);
        }
        assertTrue(held.release());
        history.awaitAll(90);
        assertEquals(List.of("waiter0", "waiter1", "waiter2", "waiter3"), history.served);
        assertEquals(List.of(), history.violations);
    }

    /**
     * Claim (f): a fair waiter woken by a release (the member's pub/sub message, a driver I/O thread)
     * and decided by the quorum (its drivers' threads or the quorum's timer) never runs the user's
     * dependent stage on those threads.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldNotRunTheUsersStageOnADriverOrQuorumTimerThread(String driver) throws Exception {
        fixture = RedisMembers.of(driver, 3);
        String name = "attack:threads";
        LockClient holder = client();
        LockClient waiter = client();
        List<String> threads = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 5; i++) {
            Lease held = holder.fairLock(name).acquire(Duration.ofSeconds(10));
            CompletableFuture<Lease> pending = waiter.fairLock(name).acquireAsync(Duration.ofSeconds(30));
            CompletableFuture<Void> stage = pending.thenAccept(l -> {
                threads.add(Thread.currentThread().getName());
                l.release();
            });
            awaitQueued(name, 1, 0, 1, 2);
            assertTrue(held.release());
            stage.get(30, TimeUnit.SECONDS);
        }
        for (String t : threads) {
            String lower = t.toLowerCase();
            assertFalse(
                    lower.contains("lettuce")
                            || lower.contains("eventloop")
                            || lower.contains("quorum-timer")
                            || lower.contains("jedis"),
                    "user stage ran on " + threads);
        }
    }

    /**
     * Claims (b) and (c) under partitions: three waiters, each cut from a different member (so each
     * keeps places on two members only, and no member holds all three), queued one after the other:
     * they are all served, one at a time, in the order they queued.
     */
    @Test
    void shouldServeWaitersEachCutFromADifferentMemberInTheOrderTheyQueued() throws Exception {
        fixture = RedisMembers.lettuce(3);
        String name = "attack:partitioned";
        Lease held = heldByANewClient(name);
        History history = new History();
        for (int i = 0; i < 3; i++) {
            String who = "waiter" + i;
            Proxied one = enlistedProxiedClient(name);
            one.links().get(i).partition();
            history.takeOnce(one.client(), name, who);
            int[] reached = i == 0 ? new int[] {1, 2} : i == 1 ? new int[] {0, 2} : new int[] {0, 1};
            // queued on the two members it reaches, behind the ones before it
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            int expected = i == 0 ? 1 : i == 1 ? 1 : 2; // m1,m2 / m0 gets 1, m2 gets 2 / m0 2, m1 2
            while (!(queued(reached[0], name) >= expected && queued(reached[1], name) >= expected)) {
                assertTrue(System.nanoTime() < deadline, who + " never queued");
                Thread.sleep(20);
            }
            awaitTicketsAgree(name, i + 1); // its ticket written back before the next one's first call
        }
        assertTrue(held.release());
        history.awaitAll(90);
        assertEquals(List.of(), history.violations, "grants " + history.grants);
        assertEquals(List.of("waiter0", "waiter1", "waiter2"), history.served);
    }

    /**
     * Claims (b) and (c) with a slow link: the first waiter's link to every member has 300 ms latency
     * each way (a round trip of 600 ms, longer than a fair attempt's short reply wait of 500 ms), two
     * fast waiters queue behind it. The slow waiter is served first, then the others in their order.
     */
    @Test
    void shouldServeASlowLinkWaiterInItsTurnAndLetNoLaterWaiterPassIt() throws Exception {
        fixture = RedisMembers.lettuce(3);
        String name = "attack:slow-link";
        Proxied one = enlistedProxiedClient(name);
        Lease held = heldByANewClient(name);
        one.links().forEach(l -> l.latency(Duration.ofMillis(300)));
        History history = new History();
        for (int i = 0; i < 3; i++) {
            String who = "waiter" + i;
            LockClient waiter = i == 0 ? one.client() : client();
            history.takeOnce(waiter, name, who);
            awaitQueued(name, i + 1, 0, 1, 2);
            awaitTicketsAgree(name, i + 1); // its ticket written back before the next one's first call
        }
        assertTrue(held.release());
        history.awaitAll(90);
        assertEquals(List.of(), history.violations, "grants " + history.grants);
        assertEquals(List.of("waiter0", "waiter1", "waiter2"), history.served);
    }

    /**
     * QuorumTimer's claim at the user's level: closing the client while fair waiters are in flight on a
     * quorum that cannot answer (two of three members frozen, so each phase 1 waits on the quorum's
     * timers) completes every waiter's future promptly.
     */
    @Test
    void shouldCompleteEveryInFlightFairWaiterPromptlyWhenItsClientClosesWhileTheQuorumIsFrozen() throws Exception {
        fixture = RedisMembers.lettuce(3);
        String name = "attack:close";
        LockClient waiters = client();
        enlistEveryMember(waiters);
        Lease held = heldByANewClient(name);
        List<CompletableFuture<Lease>> pending = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            pending.add(waiters.fairLock(name).acquireAsync(Duration.ofSeconds(120)));
        }
        awaitQueued(name, 4, 0, 1, 2);
        node(1, name).pause();
        node(2, name).pause();
        try {
            Thread.sleep(300); // attempts now in flight towards the frozen members (no correctness hangs on it)
            long closing = System.nanoTime();
            waiters.close();
            for (CompletableFuture<Lease> f : pending) {
                f.handle((r, e) -> null).get(15, TimeUnit.SECONDS);
            }
            assertTrue(System.nanoTime() - closing < TimeUnit.SECONDS.toNanos(15));
        } finally {
            node(1, name).resume();
            node(2, name).resume();
        }
        held.release();
    }

    /**
     * Claim (e) for frozen waiters (a SIGSTOP'd client, as the members see it: its links silenced, its
     * bytes held): three waiters ahead of a live one freeze at once while the lock is held. Once the
     * holder releases, the live waiter is served within 2.5 s of the freeze (their places lapse 1.5 s
     * after their last calls, together); when they thaw, nobody holds the lock alongside another.
     */
    @Test
    void shouldServeTheWaiterBehindThreeFrozenWaitersWithinTwoAndAHalfSecondsOfTheFreeze() throws Exception {
        fixture = RedisMembers.lettuce(3);
        String name = "attack:frozen-waiters";
        Lease held = heldByANewClient(name);
        History history = new History();
        List<FaultProxy> frozenLinks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String who = "frozen" + i;
            Proxied one = proxiedClient(name);
            frozenLinks.addAll(one.links());
            history.takeOnce(one.client(), name, who);
            awaitQueued(name, i + 1, 0, 1, 2);
        }
        LockClient live = client();
        CompletableFuture<Lease> served = live.fairLock(name).acquireAsync(Duration.ofSeconds(60));
        awaitQueued(name, 4, 0, 1, 2);
        awaitTicketsAgree(name, 4);
        long frozenAt = System.nanoTime();
        frozenLinks.forEach(FaultProxy::partition);
        assertTrue(held.release());
        Lease lease = served.get(30, TimeUnit.SECONDS);
        long afterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
        history.granted("live", lease.fencingToken());
        // thaw while the live waiter holds
        frozenLinks.forEach(FaultProxy::resume);
        Thread.sleep(500); // work under the lease, while the thawed waiters ask
        history.releasing();
        assertTrue(lease.release());
        history.awaitAll(60);
        assertEquals(List.of(), history.violations, "grants " + history.grants);
        assertTrue(afterMs <= 2_500, "the live waiter was served " + afterMs + " ms after three waiters ahead froze");
    }

    /**
     * QuorumTimer's "no timer leak per acquisition": after fair acquisitions that waited (a frozen
     * member, so graces and patiences ran and were cancelled), the quorum keeps no pending timer.
     */
    @Test
    void shouldKeepNoPendingTimerAfterFairAcquisitionsThatWaitedOnAFrozenMember() throws Exception {
        fixture = RedisMembers.lettuce(3);
        String name = "attack:timers";
        QuorumBackend quorum = QuorumBackend.of(
                fixture.members().stream().map(LockBackendFixture::newBackend).toList());
        LockClient counted = LockClient.builder(quorum).build();
        clients.add(counted);
        LockClient other = client();
        enlistEveryMember(counted);
        enlistEveryMember(other);
        node(2, name).pause();
        try {
            for (int i = 0; i < 10; i++) {
                Lease held = other.fairLock(name).acquire(Duration.ofSeconds(20));
                CompletableFuture<Lease> waiting = counted.fairLock(name).acquireAsync(Duration.ofSeconds(30));
                awaitQueued(name, 1, 0, 1);
                assertTrue(held.release());
                waiting.get(30, TimeUnit.SECONDS).release();
            }
        } finally {
            node(2, name).resume();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (quorum.pendingTimers() != 0) {
            assertTrue(System.nanoTime() < deadline, quorum.pendingTimers() + " timers still pending");
            Thread.sleep(50);
        }
    }

    /**
     * Claim (e) at its edge: a fair waiter that dies (here: its links freeze, as a SIGSTOP'd or killed
     * client leaves them) in the round trip of the ask that won a majority's phase-1 grants, before it
     * could commit or clean them up. Its grants live for a grant window (1.5 s), not its lease (6 s),
     * and keep its places for as long: the waiter behind it is served within 2.5 s of the death, as
     * behind a dead head on one server (whose release grants the head a 1.5 s window). Failed with
     * grants that carried the lease: 6.0 s.
     */
    @Test
    void shouldNotBlockTheQueueForALeaseWhenAWaiterDiesBetweenItsPhaseOneGrantsAndItsCommit() throws Exception {
        fixture = RedisMembers.lettuce(3);
        String name = "attack:dies-granted";
        String lockKey = LockKeys.lockKey(PREFIX, name);
        Lease held = heldByANewClient(name);
        String holderValue = (String) node(0, name).command("GET", lockKey);
        Proxied one = enlistedProxiedClient(name);
        List<FaultProxy> links = one.links();
        links.forEach(l -> l.latency(Duration.ofMillis(200))); // a round trip of 400 ms: time to freeze it mid-ask
        LockOptions sixSeconds = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(6))
                .autoRenew(false)
                .build();
        CompletableFuture<Lease> dying = one.client().fairLock(name, sixSeconds).acquireAsync(Duration.ofSeconds(60));
        awaitQueued(name, 1, 0, 1, 2);
        LockClient live = client();
        CompletableFuture<Lease> served = live.fairLock(name).acquireAsync(Duration.ofSeconds(60));
        awaitQueued(name, 2, 0, 1, 2);
        awaitTicketsAgree(name, 2);
        assertTrue(held.release());
        // When the dying waiter's ask was granted by a majority (it reached them; its replies are on their way) ...
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            int grantedToIt = 0;
            for (int m = 0; m < 3; m++) {
                Object v = node(m, name).command("GET", lockKey);
                if (v != null && !v.equals(holderValue)) {
                    grantedToIt++;
                }
            }
            if (grantedToIt >= 2) {
                break;
            }
            assertTrue(System.nanoTime() < deadline, "the dying waiter was never granted by a majority");
            Thread.sleep(5);
        }
        // ... it dies: nothing more comes from it or reaches it
        links.forEach(FaultProxy::partition);
        long diedAt = System.nanoTime();
        assertFalse(dying.isDone(), "the dying waiter had not been told of its grant");
        Lease lease = served.get(30, TimeUnit.SECONDS);
        long afterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - diedAt);
        lease.release();
        System.out.println("the waiter behind the dead one was served " + afterMs + " ms after it died");
        assertTrue(afterMs <= 2_500, "the waiter behind the dead one was served " + afterMs + " ms after it died");
    }
}
