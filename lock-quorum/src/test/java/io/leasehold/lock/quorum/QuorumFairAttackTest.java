package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.LockBackendFixture;
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

/**
 * Attacks on fairLock over a quorum of three real {@code redis-server}s (Lettuce members), each
 * client a QuorumBackend of its own (as separate applications would build them).
 */
class QuorumFairAttackTest {

    private static final String PREFIX = "leasehold:";

    private final List<LockClient> clients = new ArrayList<>();
    private QuorumFixture fixture;

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
        if (fixture != null) {
            fixture.close();
        }
    }

    private LockClient client() {
        LockClient client = LockClient.builder(QuorumBackend.of(
                        fixture.members().stream().map(LockBackendFixture::newBackend).toList()))
                .build();
        clients.add(client);
        return client;
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
            assertTrue(System.nanoTime() < deadline, "never queued " + count + " on every member of " + List.of(onMembers));
            Thread.sleep(20);
        }
    }

    /** A history of grants: at most one holder at a time, and each grant's token above every earlier one. */
    private static final class History {
        final AtomicInteger holders = new AtomicInteger();
        final AtomicLong lastToken = new AtomicLong();
        final List<String> violations = new CopyOnWriteArrayList<>();
        final List<String> grants = new CopyOnWriteArrayList<>();

        synchronized void granted(String who, long token) {
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
    }

    /**
     * Claims (a) and (c): four clients each take a fair lock 15 times over; a member of the quorum
     * restarts without persistence (its queue and lock lost) after a few grants. Every acquisition is
     * served within a generous deadline, never two holders, tokens rise along the grant order.
     */
    @Test
    void shouldKeepServingFairWaitersOneAtATimeWithRisingTokensWhileAMemberRestartsEmpty() throws Exception {
        fixture = RedisMembers.lettuce(3);
        String name = "attack:restart";
        History history = new History();
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(10))
                .autoRenew(false)
                .build();
        int perClient = 15;
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            LockClient client = client();
            String who = "client" + c;
            runs.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < perClient; i++) {
                    Lease lease = client.fairLock(name, options).acquire(Duration.ofSeconds(60));
                    history.granted(who + "#" + i, lease.fencingToken());
                    history.releasing();
                    lease.release();
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (history.grants.size() < 10 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        node(0, name).restart();
        CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        assertEquals(List.of(), history.violations, "grants: " + history.grants);
        assertEquals(4 * perClient, history.grants.size());
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
        LockClient holder = client();
        LockClient quitter = client();
        LockClient patient = client();
        Lease held = holder.fairLock(name).acquire(Duration.ofSeconds(10));
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
        LockClient holder = client();
        Lease held = holder.fairLock(name).acquire(Duration.ofSeconds(10));
        node(2, name).pause();
        List<String> served = new CopyOnWriteArrayList<>();
        History history = new History();
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String who = "waiter" + i;
            LockClient waiter = client();
            waits.add(waiter.fairLock(name).acquireAsync(Duration.ofSeconds(60)).thenAccept(lease -> {
                history.granted(who, lease.fencingToken());
                served.add(who);
                history.releasing();
                if (who.equals("waiter0")) {
                    node(2, name).resume();
                }
                lease.release();
            }));
            awaitQueued(name, i + 1, 0, 1);
        }
        assertTrue(held.release());
        CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
        assertEquals(List.of("waiter0", "waiter1", "waiter2", "waiter3"), served);
        assertEquals(List.of(), history.violations);
    }

    /**
     * Claim (f): a fair waiter woken by a release (the member's pub/sub message, a driver I/O thread)
     * and decided by the quorum (its drivers' threads or the quorum's timer) never runs the user's
     * dependent stage on those threads.
     */
    @Test
    void shouldNotRunTheUsersStageOnADriverOrQuorumTimerThread() throws Exception {
        fixture = RedisMembers.lettuce(3);
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
                    lower.contains("lettuce") || lower.contains("eventloop") || lower.contains("quorum-timer"),
                    "user stage ran on " + threads);
        }
    }
}
