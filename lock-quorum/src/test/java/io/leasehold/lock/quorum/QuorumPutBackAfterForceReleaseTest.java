package io.leasehold.lock.quorum;

import static io.leasehold.lock.quorum.Members.ownerOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;

/**
 * The put-back undo ({@code QuorumRestore#undoneAfterRelease}) after this client's force-release:
 * force-release.lua deletes the lock whoever holds it, so it must not be sent again on a member where a
 * put-back's call FAILED (it may or may not have landed): the key there may be the next holder's by then.
 *
 * <p>Three in-memory members. Member 2 holds another owner's lock at B's grant, so B's lease is granted on
 * members 0 and 1 and B's spread keeps asking member 2. One of those put-backs is held (never forwarded to
 * member 2: it certainly did not land). B's client force-releases the lock; D (another client) then takes it
 * on all three members. The held put-back then fails. D's copy on member 2 must survive: nothing of B's
 * was ever written there.
 */
class QuorumPutBackAfterForceReleaseTest {

    private static final String NAME = "undo:force";
    private static final String KEY = Members.lockKey(NAME);
    private static final String OTHER = "x.1:1";
    private static final LockOptions LONG_NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();

    private final Members members = new Members(3);
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        members.close();
    }

    /** Member 2's backend for B: holds the next put-back once armed (never forwarded); counts force-releases answered. */
    static final class HeldRestore extends ForwardingLockBackend {
        final AtomicInteger restoresSent = new AtomicInteger();
        final AtomicInteger forceAnswered = new AtomicInteger();
        volatile boolean armed;
        final AtomicReference<CompletableFuture<Object>> held = new AtomicReference<>();

        HeldRestore(LockBackend delegate) {
            super(delegate);
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (ScriptNames.FORCE_RELEASE.equals(script.name())) {
                return delegate().eval(script, keys, args).whenComplete((r, f) -> forceAnswered.incrementAndGet());
            }
            if (!ScriptNames.QUORUM_RESTORE.equals(script.name())) {
                return delegate().eval(script, keys, args);
            }
            restoresSent.incrementAndGet();
            if (armed) {
                CompletableFuture<Object> future = new CompletableFuture<>();
                if (held.compareAndSet(null, future)) {
                    return future; // never reaches member 2
                }
            }
            return delegate().eval(script, keys, args);
        }
    }

    private String valueOn(int member) {
        return members.store(member).get(KEY).orElse("(none)");
    }

    private String values() {
        List<String> v = new ArrayList<>();
        for (int m = 0; m < 3; m++) {
            v.add(valueOn(m) + " (pttl " + members.store(m).pttl(KEY) + ")");
        }
        return v.toString();
    }

    private LockClient client() {
        QuorumBackend quorum = members.quorum();
        LockClient client = LockClient.create(quorum);
        closing.add(quorum);
        closing.add(client);
        client.lock("warm-up").acquire(Duration.ofSeconds(5)).release();
        return client;
    }

    /** D's lease and owner, and the members' values just before B's held put-back failed. */
    private record DHolds(Lease lease, String owner, String beforeFailure) {}

    /**
     * D's lease, on all three members, after B's force-release while B's put-back to member 2 is held;
     * then the held put-back fails with {@code putBackFailure}, and this waits until a force-release
     * re-sent by B's client answered on member 2 (or 3 s passed).
     */
    private DHolds dHoldsAfterForceRelease(HeldRestore member2, Throwable putBackFailure) throws Exception {
        return dHoldsAfter(member2, putBackFailure, true);
    }

    /** As {@link #dHoldsAfterForceRelease}, B letting go by force-release, or else by its lease's own release. */
    private DHolds dHoldsAfter(HeldRestore member2, Throwable putBackFailure, boolean force) throws Exception {
        QuorumBackend bQuorum = QuorumBackend.of(
                members.fixtures.get(0).newBackend(), members.fixtures.get(1).newBackend(), member2);
        LockClient b = LockClient.create(bQuorum);
        closing.add(bQuorum);
        closing.add(b);
        b.lock("warm-up").acquire(Duration.ofSeconds(5)).release();
        LockClient d = client();

        members.store(2).writeKey(KEY, OTHER);
        member2.armed = true; // the spread's next put-back to member 2 is held
        Lease bLease = b.lock(NAME, LONG_NO_RENEW).acquire(Duration.ofSeconds(5));
        Members.await("B's spread sent a put-back to member 2, held", () -> member2.held.get() != null);
        String bOwner = ownerOf(valueOn(0));
        assertEquals(OTHER, valueOn(2), "member 2 held by another owner at B's grant");

        if (force) {
            assertTrue(b.lock(NAME).forceRelease(), "B's client force-released the lock");
        } else {
            assertTrue(bLease.release(), "B released its lease");
        }
        members.store(2).deleteKey(KEY); // member 2 frees up (OTHER goes; the force-release deleted it already)
        Lease dLease = d.lock(NAME, LONG_NO_RENEW).acquire(Duration.ofSeconds(5));
        String dOwner = ownerOf(valueOn(0));
        assertFalse(dOwner.equals(bOwner));
        assertEquals(dOwner, ownerOf(valueOn(1)), "D holds member 1");
        assertEquals(dOwner, ownerOf(valueOn(2)), () -> "D holds member 2: " + values());
        String beforeFailure = values();

        int forcesBefore = member2.forceAnswered.get();
        member2.held.get().completeExceptionally(putBackFailure); // B's put-back never reached member 2
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (member2.forceAnswered.get() == forcesBefore && System.nanoTime() - deadline < 0) {
            Thread.sleep(5); // bounded: a re-sent force-release answered on member 2, or none came
        }
        return new DHolds(dLease, dOwner, beforeFailure);
    }

    private void assertDStillOnMember2(DHolds d, HeldRestore member2) {
        assertEquals(
                d.owner(),
                ownerOf(valueOn(2)),
                () -> "D's copy on member 2 deleted after B's put-back (never landed) failed; before the failure "
                        + d.beforeFailure() + ", now " + values()
                        + "; force-releases answered on member 2 via B's client: " + member2.forceAnswered.get());
    }

    /** A put-back failing with an error reply (not transient): the undo is sent at once. */
    @RepeatedTest(2)
    void shouldNotDeleteTheNextHoldersCopyWhenAPutBackFailsAfterAForceRelease() throws Exception {
        HeldRestore member2 = new HeldRestore(members.fixtures.get(2).newBackend());
        DHolds d = dHoldsAfterForceRelease(member2, new IllegalStateException("ERR put-back failed"));
        assertDStillOnMember2(d, member2);
        assertTrue(d.lease().release());
    }

    /**
     * A put-back timing out (transient: B's client skips member 2 a while, so the undo fails at once and
     * goes to ReleaseResends, which sends it once member 2 is admitted again).
     */
    @RepeatedTest(2)
    void shouldNotDeleteTheNextHoldersCopyWhenAPutBackTimesOutAfterAForceRelease() throws Exception {
        HeldRestore member2 = new HeldRestore(members.fixtures.get(2).newBackend());
        DHolds d = dHoldsAfterForceRelease(member2, new TimeoutException("put-back timed out"));
        assertDStillOnMember2(d, member2);
        assertTrue(d.lease().release());
    }

    /**
     * The consequence for D: holding the lock (granted on all three members), D loses member 0. Two of
     * three members are up and nobody else holds the lock, so D's extend must be confirmed.
     */
    @RepeatedTest(2)
    void shouldKeepTheNextHoldersLeaseThroughAMemberDeathAfterAFailedPutBack() throws Exception {
        HeldRestore member2 = new HeldRestore(members.fixtures.get(2).newBackend());
        DHolds d = dHoldsAfterForceRelease(member2, new IllegalStateException("ERR put-back failed"));
        String beforeDeath = values();
        members.fixtures.get(0).makeUnavailable();
        try {
            d.lease().extend(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            throw new AssertionError(
                    "D's extend after member 0 died failed (2 of 3 up, D the only holder); before B's put-back failed "
                            + d.beforeFailure() + ", before the death " + beforeDeath + ", now " + values(),
                    e);
        }
        assertFalse(
                d.lease().lost().isDone(), () -> "D lost: " + d.lease().lost().join());
    }

    /**
     * Control: B lets go by its lease's own release (release.lua, checked against B's owner); the same
     * failed put-back re-sends it on member 2, where it leaves D's copy alone.
     */
    @RepeatedTest(2)
    void shouldLeaveTheNextHoldersCopyWhenAReleaseIsSentAgainAfterAFailedPutBack() throws Exception {
        HeldRestore member2 = new HeldRestore(members.fixtures.get(2).newBackend());
        DHolds d = dHoldsAfter(member2, new IllegalStateException("ERR put-back failed"), false);
        assertDStillOnMember2(d, member2);
        assertTrue(d.lease().release());
    }

    /**
     * The renewals' put-back ({@code QuorumRestore#restore}): B auto-renews a 3 s lease granted on members
     * 0 and 1; once B's spread gave up on member 2 (9 tries), member 2 frees up and B's next renewal puts
     * the lease back there: that call is held (never forwarded). B's client force-releases the lock, D
     * takes it on all three members, the held call fails: D's copy on member 2 must survive.
     */
    @RepeatedTest(2)
    void shouldNotDeleteTheNextHoldersCopyWhenARenewalsPutBackFailsAfterAForceRelease() throws Exception {
        HeldRestore member2 = new HeldRestore(members.fixtures.get(2).newBackend());
        QuorumBackend bQuorum = QuorumBackend.of(
                members.fixtures.get(0).newBackend(), members.fixtures.get(1).newBackend(), member2);
        LockClient b = LockClient.create(bQuorum);
        closing.add(bQuorum);
        closing.add(b);
        b.lock("warm-up").acquire(Duration.ofSeconds(5)).release();
        LockClient d = client();
        members.store(2).writeKey(KEY, OTHER);
        int before = member2.restoresSent.get();
        b.lock(NAME, LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build())
                .acquire(Duration.ofSeconds(5));
        Members.await("B's spread tried member 2 nine times", () -> member2.restoresSent.get() - before >= 9);
        member2.armed = true;
        members.store(2).deleteKey(KEY); // member 2 frees up: B's next renewal puts the lease back there
        Members.await("a renewal's put-back to member 2, held", () -> member2.held.get() != null);
        assertTrue(b.lock(NAME).forceRelease(), "B's client force-released the lock");
        members.store(2).deleteKey(KEY);
        Lease dLease = d.lock(NAME, LONG_NO_RENEW).acquire(Duration.ofSeconds(5));
        String dOwner = ownerOf(valueOn(0));
        assertEquals(dOwner, ownerOf(valueOn(2)), () -> "D holds member 2: " + values());
        String beforeFailure = values();
        int forcesBefore = member2.forceAnswered.get();
        member2.held.get().completeExceptionally(new IllegalStateException("ERR put-back failed"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (member2.forceAnswered.get() == forcesBefore && System.nanoTime() - deadline < 0) {
            Thread.sleep(5); // bounded: a re-sent force-release answered on member 2, or none came
        }
        assertDStillOnMember2(new DHolds(dLease, dOwner, beforeFailure), member2);
        assertTrue(dLease.release());
    }
}
