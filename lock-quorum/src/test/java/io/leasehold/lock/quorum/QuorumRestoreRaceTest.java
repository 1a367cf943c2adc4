package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Attack on the put-back (quorum-restore.lua): a restore that reaches its member after the lease was
 * released (a slow member, a command buffered and replayed, another pooled connection) writes a copy
 * of a lease nobody holds, with a whole lease time to live.
 */
class QuorumRestoreRaceTest {

    private static final String NAME = "orders:46";
    private static final Duration LEASE = Duration.ofSeconds(6);
    private static final LockOptions RENEWED =
            LockOptions.builder().leaseTime(LEASE).autoRenew(true).build();

    private final Members members = new Members(3);

    @AfterEach
    void close() {
        members.close();
    }

    /** A member backend whose quorum-restore calls are held until released. */
    static final class HoldingRestores extends ForwardingLockBackend {
        final List<Runnable> held;
        final java.util.concurrent.atomic.AtomicInteger answered = new java.util.concurrent.atomic.AtomicInteger();

        HoldingRestores(LockBackend delegate, List<Runnable> held) {
            super(delegate);
            this.held = held;
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (ScriptNames.QUORUM_RESTORE.equals(script.name())) {
                CompletableFuture<Object> later = new CompletableFuture<>();
                held.add(() -> delegate().eval(script, keys, args).whenComplete((r, f) -> {
                    answered.incrementAndGet();
                    if (f != null) later.completeExceptionally(f);
                    else later.complete(r);
                }));
                return later;
            }
            return delegate().eval(script, keys, args);
        }
    }

    /**
     * A quorum of 3 with member 0 down: the lock is free on both live members once A released it, so B
     * should be granted at once. A restore of A's lease that reached member 2 after A's release (it was
     * sent before the release) makes member 2 hold a copy of the released lease for a whole lease time,
     * and nobody is granted the name until it runs out.
     */
    @RepeatedTest(2)
    void shouldNotLeaveACopyOfAReleasedLeaseThatBlocksGrantsWhenARestoreArrivesAfterTheRelease() {
        HoldingRestores member2 =
                new HoldingRestores(members.fixtures.get(2).newBackend(), new CopyOnWriteArrayList<>());
        try (LockClient a = LockClient.builder(QuorumBackend.of(
                                members.fixtures.get(0).newBackend(),
                                members.fixtures.get(1).newBackend(),
                                member2))
                        .build();
                LockClient b = LockClient.builder(members.quorum()).build()) {
            releaseWhileItsPutBackIsHeld(a, member2);
            String stale = members.store(2).get(Members.lockKey(NAME)).orElse("(none)");
            long pttl = members.store(2).pttl(Members.lockKey(NAME));
            // Then, with member 0 down, B (the lock free on both live members) is granted at once
            members.fixtures.get(0).makeUnavailable();
            long start = System.nanoTime();
            Optional<Lease> granted =
                    b.lock(NAME, LockOptions.builder().leaseTime(LEASE).build()).tryAcquire(Duration.ofSeconds(10));
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(granted.isPresent(), "B never granted in 10 s");
            assertTrue(
                    tookMs < 1_000,
                    "B waited " + tookMs + " ms for a lock released before it asked: member 2 held a copy"
                            + " of the released lease put back after its release ('" + stale + "', pttl " + pttl
                            + " ms of a " + LEASE.toMillis() + " ms lease)");
            granted.get().release();
        }
    }

    /**
     * The put-back exists so that a lease on exactly a majority survives the next member's death. A
     * restore of A's released lease that reached member 2 late puts B (granted on members 0 and 1 only,
     * member 2 answering A's copy) back on exactly a majority that nothing can put right while A's copy
     * lives (a whole lease time): member 0's death then loses B's healthy lease, member 2 being up.
     */
    @RepeatedTest(2)
    void shouldNotLoseAHealthyLeaseWhenAMemberDiesBecauseAStaleRestoredCopyKeepsItOffTheThirdMember() {
        HoldingRestores member2 =
                new HoldingRestores(members.fixtures.get(2).newBackend(), new CopyOnWriteArrayList<>());
        try (LockClient a = LockClient.builder(QuorumBackend.of(
                                members.fixtures.get(0).newBackend(),
                                members.fixtures.get(1).newBackend(),
                                member2))
                        .build();
                LockClient b = LockClient.builder(members.quorum()).build()) {
            releaseWhileItsPutBackIsHeld(a, member2);
            // B is granted (members 0 and 1) and its watchdog runs
            Lease second = b.lock(NAME, RENEWED).acquire(Duration.ofSeconds(5));
            // When member 0 dies (member 2 is up all along)
            members.fixtures.get(0).makeUnavailable();
            long before = sequence(members.store(1).get(Members.lockKey(NAME)).orElse("x:0:0"));
            Members.await(
                    "B lost, or two more renewals on member 1",
                    () -> second.lost().isDone()
                            || sequence(members.store(1)
                                            .get(Members.lockKey(NAME))
                                            .orElse("x:0:0"))
                                    >= before + 2);
            assertFalse(
                    second.lost().isDone(),
                    () -> "B's healthy lease was lost with member 0 while member 2 was up, holding A's released"
                            + " lease put back after A's release: "
                            + members.store(2).get(Members.lockKey(NAME)).orElse("(none)")
                            + ", state " + second.state());
            second.release();
        }
    }

    /** The sequence number of a lock value: {@code <owner>:<token>:<seq>}, 0 for {@code <owner>:<token>}. */
    /**
     * A takes a renewed lease; its copy on member 2 runs out (a partition, a pause), so the watchdog's
     * renewal asks member 2 to put it back, and that call is held; A releases meanwhile (everywhere it
     * holds the lease); then the held put-back runs on member 2 and answers.
     */
    private void releaseWhileItsPutBackIsHeld(LockClient a, HoldingRestores member2) {
        Lease lease = a.lock(NAME, RENEWED).acquire(Duration.ofSeconds(5));
        members.store(2).deleteKey(Members.lockKey(NAME));
        Members.await("a restore sent to member 2", () -> !member2.held.isEmpty());
        assertTrue(lease.release());
        member2.held.forEach(Runnable::run);
        Members.await("the restore ran and answered", () -> member2.answered.get() > 0);
    }

    private static long sequence(String value) {
        String[] parts = value.split(":");
        return parts.length < 3 ? 0 : Long.parseLong(parts[2]);
    }
}
