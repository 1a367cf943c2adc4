package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A release that no majority can confirm, because a member that held the lease is down: the lease lived
 * on exactly a majority (here members 1, 2 and 4 of five; members 0 and 3 hold another owner's value,
 * such as a fair waiter's phase-1 grant) and member 4 then died. The owner is gone from every member
 * that answered, and another owner holds no majority, so this is no theft; but nothing can confirm that
 * the lease stayed its own either. The release answers so (unconfirmed) at once, neither "held by
 * another" (a false theft) nor only at the dead member's command timeout (which raced the engine's own).
 */
class QuorumReleaseUnconfirmedTest {

    private static final String NAME = "orders:unconfirmed";
    private static final String OWNER = "0123456789abcdef0123456789abcdef";
    private static final String OTHER = "fedcba9876543210fedcba9876543210";

    private final Members members = new Members(5);

    @AfterEach
    void close() {
        members.close();
    }

    private void leaseOnOneTwoAndFourOtherOwnerOnZeroAndThree() {
        for (int i : new int[] {1, 2, 4}) {
            members.store(i).writeKey(Members.lockKey(NAME), OWNER + ":5");
        }
        for (int i : new int[] {0, 3}) {
            members.store(i).writeKey(Members.lockKey(NAME), OTHER + ":4");
        }
    }

    private QuorumUnavailableException unconfirmed(QuorumBackend quorum) throws Exception {
        ExecutionException e = assertThrows(
                ExecutionException.class,
                () -> quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER))
                        .get(4, TimeUnit.SECONDS),
                "the release fails as unconfirmed within the patience, not at a dead member's timeout");
        return assertInstanceOf(QuorumUnavailableException.class, e.getCause(), () -> "unconfirmed: " + e.getCause());
    }

    @Test
    void shouldAnswerUnconfirmedNotHeldByAnotherWhenAMemberThatHeldTheLeaseFails() throws Exception {
        leaseOnOneTwoAndFourOtherOwnerOnZeroAndThree();
        members.store(4).makeUnavailable();
        try (QuorumBackend quorum = members.quorum()) {
            QuorumUnavailableException e = unconfirmed(quorum);

            String message = e.getMessage();
            assertTrue(
                    message.contains("no majority of the quorum could confirm the release of lock '"
                                    + Members.lockKey(NAME) + "'")
                            && message.contains("released or absent on 2 members, held by another owner on 2,"
                                    + " failed or silent on 1, 3 needed"),
                    () -> "what each member said: " + message);
            assertFalse(
                    e.isTransient(),
                    () -> "answered at once, not resent for the engine's whole budget while member 4 is down: "
                            + message);
            assertFalse(members.store(1).exists(Members.lockKey(NAME)), "released on member 1");
            assertFalse(members.store(2).exists(Members.lockKey(NAME)), "released on member 2");
        }
    }

    @Test
    void shouldAnswerUnconfirmedWithinThePatienceWhenAMemberThatHeldTheLeaseIsSilent() throws Exception {
        leaseOnOneTwoAndFourOtherOwnerOnZeroAndThree();
        members.store(4).freeze();
        try (QuorumBackend quorum = members.quorum()) {
            long start = System.nanoTime();
            QuorumUnavailableException e = unconfirmed(quorum);

            assertTrue(e.getMessage().contains("failed or silent on 1"), e::getMessage);
            assertTrue(
                    System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4),
                    "answered within the patience (1 s) plus margin, not at the silent member's answer");
        } finally {
            members.store(4).thaw();
        }
        Members.await(
                "the silent member's copy released once it answers",
                () -> !members.store(4).exists(Members.lockKey(NAME)));
    }

    @Test
    void shouldStillAnswerHeldByAnotherWhenAnotherOwnerHoldsAMajority() throws Exception {
        for (int i : new int[] {0, 1, 3}) {
            members.store(i).writeKey(Members.lockKey(NAME), OTHER + ":6");
        }
        members.store(2).writeKey(Members.lockKey(NAME), OWNER + ":5");
        members.store(4).makeUnavailable();
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(
                    -1L,
                    quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER))
                            .get(4, TimeUnit.SECONDS));
        }
    }
}
