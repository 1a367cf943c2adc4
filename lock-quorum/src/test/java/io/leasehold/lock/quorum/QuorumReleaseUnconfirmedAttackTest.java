package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attack on 49f15c7 (release patience of 1 s and "unconfirmed" instead of -1). Geometry of F11: a lease
 * on exactly a majority (members 1, 2, 4 of five), members 0 and 3 holding another owner's value.
 */
class QuorumReleaseUnconfirmedAttackTest {

    private static final String NAME = "orders:unconfirmed-attack";
    private static final String OWNER = "0123456789abcdef0123456789abcdef";
    private static final String OTHER = "fedcba9876543210fedcba9876543210";

    private Members members;

    @AfterEach
    void close() {
        if (members != null) {
            members.close();
        }
    }

    private void leaseOnOneTwoAndFourOtherOwnerOnZeroAndThree() {
        members = new Members(5);
        for (int i : new int[] {1, 2, 4}) {
            members.store(i).writeKey(Members.lockKey(NAME), OWNER + ":5");
        }
        for (int i : new int[] {0, 3}) {
            members.store(i).writeKey(Members.lockKey(NAME), OTHER + ":4");
        }
    }

    private static Object release(QuorumBackend quorum) throws Exception {
        try {
            return quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER))
                    .get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("release failed: " + e.getCause(), e.getCause());
        }
    }

    /** A member alive but 1.3 s slow (a GC pause, a hiccup) answers "released": a majority released it. */
    @Test
    void shouldConfirmTheReleaseWhenAMemberThatHeldTheLeaseIsSlowButAliveJustOverOneSecond() throws Exception {
        leaseOnOneTwoAndFourOtherOwnerOnZeroAndThree();
        members.store(4).setLatency(Duration.ofMillis(1300));
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(1L, release(quorum), "released on members 1, 2 and 4: a majority");
        }
    }

    /**
     * One reply lost (member 1 ran the release, its reply never came): sent again, the release would find
     * the owner gone on members 1, 2 and 4, so it is not an answer that "sending it again would find the
     * same". It must not fail non-transiently (the engine then never resends and reports the release
     * unconfirmed, R15: a lease on exactly M members must not report a failed release because one reply
     * was lost).
     */
    @Test
    void shouldNotFailTheReleaseForGoodWhenOneReplyOfALeaseOnExactlyAMajorityIsLost() throws Exception {
        leaseOnOneTwoAndFourOtherOwnerOnZeroAndThree();
        members.store(1).loseNextReply();
        try (QuorumBackend quorum = members.quorum()) {
            Object first;
            try {
                first = quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER))
                        .get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertFalse(
                        e.getCause() instanceof QuorumUnavailableException q && !q.isTransient(),
                        () -> "a lost reply made the release fail for good: " + e.getCause());
                // transient: the engine sends it again, and the resend confirms it
                first = release(quorum);
            }
            assertEquals(1L, first, "released on members 1, 2 and 4: a majority");
        }
    }

    /**
     * Three members: the lease expired and another owner took members 1 and 2 (a majority); this owner
     * still has member 0. Member 2 is down. Another owner truly holds a majority: a theft (-1, the
     * engine's STOLEN), as before 49f15c7, not "unconfirmed".
     */
    @Test
    void shouldReportHeldByAnotherWhenAnotherOwnerHoldsAMajorityOneOfWhoseMembersIsDown() throws Exception {
        members = new Members(3);
        members.store(0).writeKey(Members.lockKey(NAME), OWNER + ":5");
        for (int i : new int[] {1, 2}) {
            members.store(i).writeKey(Members.lockKey(NAME), OTHER + ":6");
        }
        members.store(2).makeUnavailable();
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(-1L, release(quorum), "another owner holds members 1 and 2");
        }
    }

    /** After an unconfirmed release, the member that was down gets it once it is back (ReleaseResends). */
    @Test
    void shouldSendAnUnconfirmedReleaseAgainToTheMemberThatWasDownOnceItIsBack() throws Exception {
        leaseOnOneTwoAndFourOtherOwnerOnZeroAndThree();
        members.store(4).makeUnavailable();
        try (QuorumBackend quorum = members.quorum()) {
            try {
                quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER))
                        .get(10, TimeUnit.SECONDS);
            } catch (ExecutionException expected) {
                // unconfirmed
            }
            members.store(4).makeAvailable();
            Members.await(
                    "member 4's copy released by a resend",
                    () -> !members.store(4).exists(Members.lockKey(NAME)));
        }
    }
}
