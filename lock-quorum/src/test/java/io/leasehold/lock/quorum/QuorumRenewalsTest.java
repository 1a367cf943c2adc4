package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Renew and extend over the quorum: the majority's code per lease (QuorumRenewals). */
class QuorumRenewalsTest {

    private static final String NAME = "orders:7";
    private static final LockOptions RENEWED_900 = LockOptions.builder()
            .leaseTime(Duration.ofMillis(900))
            .autoRenew(true)
            .build();

    private final Members members = new Members(3);

    @AfterEach
    void close() {
        members.close();
    }

    private QuorumRenewals renewals() {
        QuorumMembers quorum = QuorumMembers.of(Members.backends(members));
        return new QuorumRenewals(
                quorum, QuorumBackend.STRAGGLER_GRACE, new ReleasedOwners(), new ReleaseResends(quorum, 60_000));
    }

    @Test
    void shouldAnswerRenewedOnlyWhenEveryMemberRenewed() {
        QuorumRenewals renewals = renewals();
        assertEquals(1, renewals.code(new long[] {1, 1, 1}));
        assertEquals(1, renewals.code(new long[] {1, 2, 1}), "superseded confirms too");
        assertEquals(2, renewals.code(new long[] {2, 2, 1}), "a majority superseded: its TTL stands");
    }

    @Test
    void shouldAnswerConfirmedPartiallyWhenAMajorityButNotEveryMemberRenewed() {
        QuorumRenewals renewals = renewals();
        assertEquals(LockBackend.CONFIRMED_PARTIALLY, renewals.code(new long[] {1, 1, 0}));
        assertEquals(LockBackend.CONFIRMED_PARTIALLY, renewals.code(new long[] {1, 1}), "one member did not answer");
        assertEquals(LockBackend.CONFIRMED_PARTIALLY, renewals.code(new long[] {1, -1, 1}));
    }

    /**
     * Superseded on one member only proves the later command ran there, not on a majority: if the later
     * one then fails, the TTL in force on a majority may be this command's (a shorter extend, say), so
     * the engine must count this one's cap rather than drop it (it drops a superseded command's cap).
     */
    @Test
    void shouldCountACommandAsConfirmedPartiallyWhenFewerThanAMajoritySaySuperseded() {
        QuorumRenewals renewals = renewals();
        assertEquals(LockBackend.CONFIRMED_PARTIALLY, renewals.code(new long[] {1, 2}), "one member did not answer");
        assertEquals(LockBackend.CONFIRMED_PARTIALLY, renewals.code(new long[] {1, 2, 0}));
        assertEquals(
                2, renewals.code(new long[] {2, 2}), "superseded on a majority: the later command's reply decides");
    }

    @Test
    void shouldAnswerTheMajoritysNotConfirmedCodeWhenFewerThanAMajorityRenewed() {
        QuorumRenewals renewals = renewals();
        assertEquals(0, renewals.code(new long[] {1, 0, 0}));
        assertEquals(-1, renewals.code(new long[] {-1, -1, 1}));
        assertEquals(-2, renewals.code(new long[] {-2, -2, -2}));
        assertEquals(0, renewals.code(new long[] {0, -1, 1}), "a tie goes to absent");
    }

    @Test
    void shouldRefuseARenewThatKeepsPlaces() {
        try (QuorumBackend quorum = members.quorum()) {
            ExecutionException e = assertThrows(
                    ExecutionException.class,
                    () -> quorum.eval(
                                    Members.RENEW,
                                    List.of(Members.lockKey(NAME), "a", "b", "c"),
                                    List.of("30000:1", "x", "y", "owner", "3000"))
                            .get(5, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, e.getCause());
            assertEquals(
                    "a quorum keeps no waiters' places (its grants are composed): renew's ARGV[1] must carry no"
                            + " ':<places>', but was '30000:1'",
                    e.getCause().getMessage());
        }
    }

    @Test
    void shouldRenewExtendAndReleaseWhileOneMemberOfThreeIsDown() {
        members.inUse();
        members.store(2).makeUnavailable();
        try (LockClient client = LockClient.builder(members.quorum()).build()) {
            // Given a lease granted by the two members up
            Lease lease = client.lock(NAME, RENEWED_900).acquire(Duration.ofSeconds(5));
            // When the watchdog renews it (on two members of three)
            Members.await(
                    "the lease is UNCERTAIN after a renewal confirmed partially",
                    () -> lease.state() == LeaseState.UNCERTAIN);
            // Then it stays valid: a partial confirmation counts as a renewal
            Members.await(
                    "a lease time has passed since the grant, and the lease is still valid",
                    () -> !lease.remaining().isZero() && lease.isValid());
            assertEquals(LeaseState.UNCERTAIN, lease.state());
            // And extend and release work too
            lease.extend(Duration.ofSeconds(5));
            assertTrue(lease.isValid());
            assertTrue(members.store(0).pttl(Members.lockKey(NAME)) > 1_000, "extended on member 0");
            assertTrue(lease.release(), "released on the majority that is up");
            assertFalse(members.store(0).exists(Members.lockKey(NAME)));
            assertFalse(members.store(1).exists(Members.lockKey(NAME)));
        }
    }

    @Test
    void shouldKeepALeaseHeldWhileEveryMemberRenewsIt() {
        LockOptions renewed = LockOptions.builder()
                .leaseTime(Duration.ofMillis(600))
                .autoRenew(true)
                .build();
        try (LockClient client = LockClient.builder(members.quorum()).build()) {
            Lease lease = client.lock(NAME, renewed).acquire(Duration.ofSeconds(5));
            String value = members.store(0).get(Members.lockKey(NAME)).orElseThrow();
            // renewals write "<owner>:<token>:<seq>" on every member
            Members.await("three renewals ran on every member", () -> {
                for (int i = 0; i < 3; i++) {
                    String now = members.store(i).get(Members.lockKey(NAME)).orElse("");
                    if (!now.startsWith(value + ":") || Long.parseLong(now.substring(value.length() + 1)) < 3) {
                        return false;
                    }
                }
                return true;
            });
            assertEquals(LeaseState.HELD, lease.state());
            assertTrue(lease.release());
        }
    }

    /**
     * A lease on exactly a majority (its copy on the third member ran out: a partition, a pause, a grant
     * that came too late) would be lost with the next of those members to die: the watchdog's renewal
     * puts it back where it went missing.
     */
    @Test
    void shouldPutBackALeaseAMemberLostSoThatItSurvivesTheDeathOfAnotherMember() {
        try (LockClient client = LockClient.builder(members.quorum()).build()) {
            Lease lease = client.lock(NAME, RENEWED_900).acquire(Duration.ofSeconds(5));
            String granted = members.store(2).get(Members.lockKey(NAME)).orElseThrow();
            String ownerAndToken = granted.substring(0, granted.indexOf(':') + 1) + lease.fencingToken();
            // Given the lease is gone on member 2 (held on exactly a majority)
            assertTrue(members.store(2).deleteKey(Members.lockKey(NAME)));
            // When the watchdog renews it
            Members.await(
                    "the lease is back on member 2, with its token",
                    () -> members.store(2)
                            .get(Members.lockKey(NAME))
                            .filter(v -> v.startsWith(ownerAndToken + ":"))
                            .isPresent());
            assertTrue(members.store(2).pttl(Members.lockKey(NAME)) > 0, "with a TTL");
            // Then it survives member 0's death: members 1 and 2 still confirm it, lease time after lease time
            members.store(0).makeUnavailable();
            long renewalsBefore =
                    sequence(members.store(1).get(Members.lockKey(NAME)).orElseThrow());
            Members.await(
                    "three more renewals on members 1 and 2",
                    () -> sequence(members.store(1).get(Members.lockKey(NAME)).orElse("x:0:0")) >= renewalsBefore + 3
                            && sequence(members.store(2)
                                            .get(Members.lockKey(NAME))
                                            .orElse("x:0:0"))
                                    >= renewalsBefore + 3);
            assertTrue(lease.isValid(), () -> "still valid, " + lease.state());
            assertFalse(lease.lost().isDone(), "never lost");
            assertTrue(lease.release());
        }
    }

    @Test
    void shouldNotPutBackALeaseWhereAnotherOwnerHoldsTheName() {
        try (LockClient client = LockClient.builder(members.quorum()).build()) {
            Lease lease = client.lock(NAME, RENEWED_900).acquire(Duration.ofSeconds(5));
            members.store(2).writeKey(Members.lockKey(NAME), "b1:5");

            Members.await("a renewal confirmed partially", () -> lease.state() == LeaseState.UNCERTAIN);
            long renewalsBefore =
                    sequence(members.store(1).get(Members.lockKey(NAME)).orElseThrow());
            Members.await(
                    "two more renewals",
                    () -> sequence(members.store(1).get(Members.lockKey(NAME)).orElseThrow()) >= renewalsBefore + 2);

            assertEquals(java.util.Optional.of("b1:5"), members.store(2).get(Members.lockKey(NAME)));
            assertEquals(LeaseState.UNCERTAIN, lease.state(), "member 2 never confirms it");
            assertTrue(lease.release());
        }
    }

    @Test
    void shouldNotPutBackALeaseThatOnlyAMinorityConfirms() throws Exception {
        try (LockClient client = LockClient.builder(members.quorum()).build()) {
            Lease lease = client.lock(NAME, RENEWED_900).acquire(Duration.ofSeconds(5));
            members.store(1).deleteKey(Members.lockKey(NAME));
            members.store(2).deleteKey(Members.lockKey(NAME));

            lease.lost().get(10, TimeUnit.SECONDS);

            assertFalse(members.store(1).exists(Members.lockKey(NAME)), "not put back");
            assertFalse(members.store(2).exists(Members.lockKey(NAME)), "not put back");
        }
    }

    /** The sequence number of a renewed lock value {@code <owner>:<token>:<seq>}. */
    private static long sequence(String value) {
        return Long.parseLong(value.substring(value.lastIndexOf(':') + 1));
    }
}
