package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An attack on the release's patience (1 s) and its "unconfirmed" answer (helper-60). Geometry of F11: a lease
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

    /**
     * A member alive but 1.3 s slow (slower than the release's 1 s patience, as a member slower than every
     * patience is taken for a down one in an acquisition, F10): the release is unconfirmed, never a
     * theft, and the slow member's copy goes all the same (its first call runs).
     */
    @Test
    void shouldAnswerUnconfirmedWhenAMemberThatHeldTheLeaseIsSlowerThanThePatience() throws Exception {
        leaseOnOneTwoAndFourOtherOwnerOnZeroAndThree();
        members.store(4).setLatency(Duration.ofMillis(1300));
        try (QuorumBackend quorum = members.quorum()) {
            ExecutionException e = assertThrows(
                    ExecutionException.class,
                    () -> quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER))
                            .get(10, TimeUnit.SECONDS));
            QuorumUnavailableException unconfirmed = assertInstanceOf(QuorumUnavailableException.class, e.getCause());
            assertTrue(
                    unconfirmed.getMessage().contains("no majority of the quorum could confirm the release"),
                    unconfirmed::getMessage);
            Members.await(
                    "the slow member's copy released by its own call",
                    () -> !members.store(4).exists(Members.lockKey(NAME)));
        }
    }

    /**
     * One reply lost (member 1 ran the release, its reply never came) of a lease on exactly a majority:
     * the release cannot be confirmed by a majority, so it is unconfirmed (never a theft), answered at
     * once rather than resent for the engine's whole budget (the lock is free meanwhile, and a releaser
     * kept that long loses its place in a fair lock's line); the owner is gone from every member all the
     * same.
     */
    @Test
    void shouldAnswerUnconfirmedAndLeaveNothingWhenOneReplyOfALeaseOnExactlyAMajorityIsLost() throws Exception {
        leaseOnOneTwoAndFourOtherOwnerOnZeroAndThree();
        members.store(1).loseNextReply();
        try (QuorumBackend quorum = members.quorum()) {
            ExecutionException e = assertThrows(
                    ExecutionException.class,
                    () -> quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER))
                            .get(10, TimeUnit.SECONDS));
            QuorumUnavailableException unconfirmed = assertInstanceOf(QuorumUnavailableException.class, e.getCause());
            assertTrue(
                    unconfirmed.getMessage().contains("no majority of the quorum could confirm the release"),
                    unconfirmed::getMessage);
            for (int i : new int[] {1, 2, 4}) {
                assertFalse(members.store(i).exists(Members.lockKey(NAME)), "gone from member " + i);
            }
        }
    }

    /**
     * Three members: another owner took members 1 and 2 (a majority); this owner still has member 0, and
     * member 2 is down. Seen, another owner holds one member: exactly what a lease on exactly a majority
     * with a member down looks like (F11), so the release cannot tell a theft: it is unconfirmed,
     * transiently (it answered -1 before, which in F11's case was a false theft). Once member 2
     * answers, the theft is reported (-1: the engine's STOLEN).
     */
    @Test
    void shouldReportATheftSeenOnAMinorityAsUnconfirmedUntilTheMajorityIsSeen() throws Exception {
        members = new Members(3);
        members.store(0).writeKey(Members.lockKey(NAME), OWNER + ":5");
        for (int i : new int[] {1, 2}) {
            members.store(i).writeKey(Members.lockKey(NAME), OTHER + ":6");
        }
        members.store(2).makeUnavailable();
        try (QuorumBackend quorum = members.quorum()) {
            ExecutionException e = assertThrows(
                    ExecutionException.class,
                    () -> quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER))
                            .get(10, TimeUnit.SECONDS));
            assertTrue(
                    e.getCause() instanceof QuorumUnavailableException q
                            && q.getMessage().contains("no majority of the quorum could confirm the release"),
                    () -> "unconfirmed: " + e.getCause());

            members.store(2).makeAvailable();

            Members.await("the theft reported once member 2 answers", () -> {
                try {
                    return Long.valueOf(-1)
                            .equals(quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER))
                                    .get(10, TimeUnit.SECONDS));
                } catch (Exception stillUnconfirmed) {
                    return false;
                }
            });
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
