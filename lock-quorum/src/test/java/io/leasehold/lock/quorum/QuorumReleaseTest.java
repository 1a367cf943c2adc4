package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Release, force-release and inspect over the quorum (QuorumRelease, QuorumInspect). */
class QuorumReleaseTest {

    private static final String NAME = "orders:9";
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

    private Object forceRelease(QuorumBackend quorum) throws Exception {
        return quorum.eval(
                        Members.FORCE_RELEASE,
                        List.of(Members.lockKey(NAME), Members.acquireKeys(NAME).get(4)),
                        List.of("PUBLISH"))
                .get(10, TimeUnit.SECONDS);
    }

    private Object inspect(QuorumBackend quorum) throws Exception {
        return quorum.eval(Members.INSPECT, List.of(Members.lockKey(NAME)), List.of())
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    void shouldReleaseWhenAMajorityReleasedOrFoundItAbsent() throws Exception {
        // Given a lease held on exactly two members (the third never had it)
        members.store(0).writeKey(Members.lockKey(NAME), OWNER + ":5");
        members.store(1).writeKey(Members.lockKey(NAME), OWNER + ":5");
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(1L, release(quorum));
            assertFalse(members.store(0).exists(Members.lockKey(NAME)));
            assertFalse(members.store(1).exists(Members.lockKey(NAME)));
        }
    }

    @Test
    void shouldConfirmAResentReleaseThatFindsTheNextHolderWhenAMajorityConfirmedItsFirstSend() throws Exception {
        // Given a lease released by a majority (the engine then lost the reply and sends it again) ...
        for (int i = 0; i < 3; i++) {
            members.store(i).writeKey(Members.lockKey(NAME), OWNER + ":5");
        }
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(1L, release(quorum));
            // ... and the next holder took the lock before the resend came
            for (int i = 0; i < 3; i++) {
                members.store(i).writeKey(Members.lockKey(NAME), OTHER + ":6");
            }
            // Then the resend is answered released, not "held by another" (a theft), and the holder keeps it
            assertEquals(1L, release(quorum));
            assertEquals(Optional.of(OTHER + ":6"), members.store(0).get(Members.lockKey(NAME)));
        }
    }

    @Test
    void shouldAnswerHeldByAnotherToAReleaseNeverConfirmedBefore() throws Exception {
        for (int i = 0; i < 3; i++) {
            members.store(i).writeKey(Members.lockKey(NAME), OTHER + ":6");
        }
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(-1L, release(quorum));
        }
    }

    @Test
    void shouldSendAReleaseAgainAfterAnEarlierOneOfTheSameOwnerWasConfirmed() throws Exception {
        try (QuorumBackend quorum = members.quorum()) {
            // Given a release of an owner that found it absent everywhere (its attempt's grant still on its way)
            assertEquals(0L, release(quorum));
            // When that grant lands afterwards, and the owner is released again
            for (int i = 0; i < 3; i++) {
                members.store(i).writeKey(Members.lockKey(NAME), OWNER + ":5");
            }
            assertEquals(1L, release(quorum));
            // Then it is gone from every member, not answered from memory
            for (int i = 0; i < 3; i++) {
                assertFalse(members.store(i).exists(Members.lockKey(NAME)), "member " + i);
            }
        }
    }

    @Test
    void shouldReleaseWhenOneReleasedAndAnotherFoundItAbsentWhileTheThirdIsDown() throws Exception {
        members.store(0).writeKey(Members.lockKey(NAME), OWNER + ":5");
        members.store(2).makeUnavailable();
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(1L, release(quorum), "absent counts as gone (R15)");
        }
    }

    @Test
    void shouldAnswerAbsentWhenEveryMemberFoundItAbsent() throws Exception {
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(0L, release(quorum));
        }
    }

    @Test
    void shouldAnswerAnotherOwnerWhenAMajorityHoldsAnothersLock() throws Exception {
        members.store(0).writeKey(Members.lockKey(NAME), OTHER + ":8");
        members.store(1).writeKey(Members.lockKey(NAME), OTHER + ":8");
        members.store(2).writeKey(Members.lockKey(NAME), OWNER + ":5");
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(-1L, release(quorum));
            assertEquals("8", ((List<?>) inspect(quorum)).get(0), "the majority's holder");
        }
    }

    @Test
    void shouldFailTransientlyWhenAMajorityIsDown() {
        members.store(1).makeUnavailable();
        members.store(2).makeUnavailable();
        try (QuorumBackend quorum = members.quorum()) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> release(quorum));
            QuorumUnavailableException cause = assertInstanceOf(QuorumUnavailableException.class, e.getCause());
            assertEquals(
                    "no majority of the quorum answered release of lock 'leasehold:{orders:9}': 2 of 3 members failed"
                            + " and 0 did not answer in time, 2 needed",
                    cause.getMessage());
            assertEquals(true, quorum.isTransient(cause));
        }
    }

    @Test
    void shouldForceReleaseOnEveryMember() throws Exception {
        members.store(0).writeKey(Members.lockKey(NAME), OTHER + ":8");
        members.store(1).writeKey(Members.lockKey(NAME), OTHER + ":8");
        try (QuorumBackend quorum = members.quorum()) {
            Object reply = forceRelease(quorum);
            assertEquals(1L, reply);
            for (int i = 0; i < 3; i++) {
                assertFalse(members.store(i).exists(Members.lockKey(NAME)), "member " + i);
            }
        }
    }

    @Test
    void shouldForceReleaseACopyOnAMinorityAndAnswerThatNoLockWasHeld() throws Exception {
        // Given a copy of a lock on one member only (a release or clean-up still on its way there)
        members.store(2).writeKey(Members.lockKey(NAME), OTHER + ":8");
        try (QuorumBackend quorum = members.quorum()) {
            Object reply = forceRelease(quorum);
            // Then the copy is gone, and the answer is the majority's view: no lock was held
            assertEquals(0L, reply);
            Members.await("the copy deleted", () -> !members.store(2).exists(Members.lockKey(NAME)));
        }
    }

    @Test
    void shouldInspectTheHolderAMajorityNamesWithTheSmallestTtl() throws Exception {
        members.store(0).writeKey(Members.lockKey(NAME), OWNER + ":7");
        members.store(1).writeKey(Members.lockKey(NAME), OTHER + ":9");
        members.store(2).writeKey(Members.lockKey(NAME), OWNER + ":7:3");
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(List.of("7", -1L), inspect(quorum));
        }
    }

    @Test
    void shouldInspectAsFreeWhenNoMajorityNamesOneHolder() throws Exception {
        members.store(0).writeKey(Members.lockKey(NAME), OWNER + ":7");
        members.store(1).writeKey(Members.lockKey(NAME), OTHER + ":9");
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(List.of(), inspect(quorum));
        }
    }

    @Test
    void shouldPassOnTheMembersErrorForAKeyThatIsNotALeaseholdLock() {
        for (int i = 0; i < 3; i++) {
            members.store(i).writeForeignKey(Members.lockKey(NAME));
        }
        try (QuorumBackend quorum = members.quorum()) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> inspect(quorum));
            String message = e.getCause().getMessage();
            assertEquals(true, message.contains("not a Leasehold lock"), message);
            assertEquals(false, quorum.isTransient(e.getCause()), "a script error, as the member judges it");
        }
    }
}
