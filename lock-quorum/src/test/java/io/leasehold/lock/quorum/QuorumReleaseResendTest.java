package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A release that a majority confirmed is sent again, in the background, to each member that did not
 * answer it (down, cut off, or skipped after an earlier failure), so that the lock there goes once the
 * member answers again rather than when its TTL runs out: until then that member's copy keeps a
 * majority from forming whenever one more member is down. Each resend is release.lua itself, checked
 * against the owner, so it never touches a lock another owner took there meanwhile.
 */
class QuorumReleaseResendTest {

    private static final String NAME = "orders:17";
    private static final String OWNER = "0123456789abcdef0123456789abcdef";
    private static final String OTHER = "fedcba9876543210fedcba9876543210";

    private final Members members = new Members(3);

    @AfterEach
    void close() {
        members.close();
    }

    private Object release(QuorumBackend quorum) throws Exception {
        return quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER))
                .get(10, TimeUnit.SECONDS);
    }

    private void heldEverywhere() {
        for (int i = 0; i < 3; i++) {
            members.store(i).writeKey(Members.lockKey(NAME), OWNER + ":5");
        }
    }

    @Test
    void shouldReleaseOnAMemberThatMissedTheReleaseOnceItAnswersAgain() throws Exception {
        heldEverywhere();
        try (QuorumBackend quorum = members.quorum()) {
            members.store(2).makeUnavailable();
            assertEquals(1L, release(quorum));
            assertTrue(members.store(2).exists(Members.lockKey(NAME)), "the member that was down still holds it");

            members.store(2).makeAvailable();

            Members.await(
                    "the member that missed the release released it too",
                    () -> !members.store(2).exists(Members.lockKey(NAME)));
            Members.await("no resend left", () -> quorum.pendingReleaseResends() == 0);
        }
    }

    @Test
    void shouldNotTouchAnotherOwnersLockWhenTheResendComes() throws Exception {
        heldEverywhere();
        try (QuorumBackend quorum = members.quorum()) {
            members.store(2).makeUnavailable();
            assertEquals(1L, release(quorum));
            // meanwhile the copy there went, and another owner took the lock on that member
            members.store(2).writeKey(Members.lockKey(NAME), OTHER + ":6");

            members.store(2).makeAvailable();

            Members.await("the resend was answered", () -> quorum.pendingReleaseResends() == 0);
            assertEquals(Optional.of(OTHER + ":6"), members.store(2).get(Members.lockKey(NAME)));
        }
    }

    @Test
    void shouldStopResendingOnceTheLargestLeaseHasPassed() throws Exception {
        heldEverywhere();
        try (QuorumBackend quorum = QuorumBackend.builder(Members.backends(members))
                .maxLeaseTime(Duration.ofMillis(600))
                .build()) {
            members.store(2).makeUnavailable();
            assertEquals(1L, release(quorum));
            assertEquals(1, quorum.pendingReleaseResends(), "the member that missed it is sent it again");

            // the member never comes back: by the end of the largest lease its copy has expired anyway
            Members.await("the resends ended", () -> quorum.pendingReleaseResends() == 0);
        }
    }

    @Test
    void shouldLeaveTheResendsToTheEngineWhenNoMajorityAnswered() throws Exception {
        heldEverywhere();
        try (QuorumBackend quorum = members.quorum()) {
            members.store(1).makeUnavailable();
            members.store(2).makeUnavailable();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> release(quorum));
            assertInstanceOf(QuorumUnavailableException.class, failed.getCause());
            // the engine resends the whole release after a failure of unknown outcome
            assertEquals(0, quorum.pendingReleaseResends());
        }
    }

    /**
     * A split vote's clean-up of its own phase-1 grant, failed on the member that granted it (cut off just
     * then), is sent again too: else that grant held the lock there for the attempt's whole lease, keeping
     * grants off that member.
     */
    @Test
    void shouldReleaseASplitVotesGrantOnAMemberWhoseCleanUpFailedOnceItAnswersAgain() throws Exception {
        members.inUse();
        // Given two other owners, each on one member: an acquisition is granted on member 0 only
        members.store(1).writeKey(Members.lockKey(NAME), OTHER + ":6");
        members.store(2).writeKey(Members.lockKey(NAME), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:7");
        AtomicBoolean refuseReleases = new AtomicBoolean(true);
        List<LockBackend> backends = new ArrayList<>(Members.backends(members));
        backends.set(0, new ForwardingLockBackend(backends.get(0)) {
            @Override
            public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
                if (script.name().equals(Members.RELEASE.name()) && refuseReleases.get()) {
                    return CompletableFuture.failedFuture(new ConnectException("member 0 cut off for its clean-up"));
                }
                return super.eval(script, keys, args);
            }
        });
        try (QuorumBackend quorum = QuorumBackend.of(backends)) {
            List<?> reply = (List<?>)
                    quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 60_000, "1"))
                            .get(10, TimeUnit.SECONDS);
            assertEquals(0L, reply.get(0), "a split vote: " + reply);
            assertEquals(
                    Optional.of(OWNER),
                    members.store(0).get(Members.lockKey(NAME)).map(v -> v.substring(0, v.indexOf(':'))),
                    "the clean-up failed: member 0 still holds the attempt's grant");

            refuseReleases.set(false);

            Members.await(
                    "the split vote's grant released on member 0 once it answers",
                    () -> !members.store(0).exists(Members.lockKey(NAME)));
            Members.await("no resend left", () -> quorum.pendingReleaseResends() == 0);
        }
    }

    /** A member down for the attempt's phase 1 holds none of its grant: its clean-up is not queued. */
    @Test
    void shouldNotQueueTheCleanUpOfAMemberWhosePhaseOneFailed() throws Exception {
        members.inUse();
        members.store(1).writeKey(Members.lockKey(NAME), OTHER + ":6");
        members.store(2).makeUnavailable();
        try (QuorumBackend quorum = members.quorum()) {
            List<?> reply = (List<?>)
                    quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 60_000, "1"))
                            .get(10, TimeUnit.SECONDS);
            assertEquals(0L, reply.get(0), "a split vote: " + reply);

            Members.await(
                    "the grant released on member 0", () -> !members.store(0).exists(Members.lockKey(NAME)));
            assertEquals(0, quorum.pendingReleaseResends(), "nothing queued for the member that was down");
        }
    }

    @Test
    void shouldEndTheResendsWhenTheQuorumCloses() throws Exception {
        heldEverywhere();
        QuorumBackend quorum = members.quorum();
        members.store(2).makeUnavailable();
        assertEquals(1L, release(quorum));
        assertEquals(1, quorum.pendingReleaseResends());

        quorum.close();

        Members.await("the resends ended with the quorum", () -> quorum.pendingReleaseResends() == 0);
    }

    @Test
    void shouldKeepAtMostTheNewestReleasesForAMemberDownForLong() {
        ReleaseResends resends = new ReleaseResends(QuorumMembers.of(Members.backends(members)), 60_000);
        members.store(2).makeUnavailable();
        long now = System.nanoTime();
        for (int i = 0; i <= ReleaseResends.MAX_QUEUED; i++) {
            resends.resend(2, Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER), 3, now);
        }
        assertEquals(ReleaseResends.MAX_QUEUED, resends.pending());
        resends.close();
        assertEquals(0, resends.pending());
    }
}
