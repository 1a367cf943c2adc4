package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On real {@code redis-server}s, a member that may evict keys (maxmemory above 0 with a policy other
 * than noeviction) could drop a lease key and lose a lock silently (design risk R1): the quorum refuses
 * every acquisition with an error that is no outage (not transient), naming the member, the rule and the
 * member's settings; once the member is set to noeviction, grants resume at its next enlistment.
 */
class QuorumEvictionTest {

    private static final String NAME = "orders:42";
    private static final long LEASE_MS = 2_000;
    private static final String RECORD = LockKeys.quorumRecordKey(Members.PREFIX);

    private static Object acquire(QuorumBackend quorum, String owner) {
        try {
            return quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(owner, LEASE_MS, "1"))
                    .join();
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    private static boolean granted(Object reply) {
        return reply instanceof List && Long.valueOf(1).equals(((List<?>) reply).get(0));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldRefuseAcquisitionsWhileAMemberMayEvictAndGrantOnceItIsSetToNoEviction(String driver) {
        try (QuorumFixture fixture = driver.equals("lettuce") ? RedisMembers.lettuce(3) : RedisMembers.jedis(3)) {
            RedisNode evicting = RedisMembers.server(fixture, 1);
            evicting.command("CONFIG", "SET", "maxmemory", "100mb");
            evicting.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
            QuorumBackend quorum = QuorumBackend.builder(
                            fixture.members().stream().map(m -> m.newBackend()).toList())
                    .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                    .build();
            try (quorum) {
                Object reply = acquire(quorum, "a");

                QuorumUnavailableException e =
                        assertInstanceOf(QuorumUnavailableException.class, reply, () -> "refused: " + reply);
                String message = e.getMessage();
                assertTrue(
                        message.contains("member 1 (" + quorumMember(quorum, 1) + ") may evict lock keys: maxmemory "
                                + 100L * 1024 * 1024 + " with maxmemory-policy allkeys-lru; a quorum member must use"
                                + " maxmemory-policy noeviction or maxmemory 0"),
                        () -> "the member, its settings and the rule: " + message);
                assertTrue(message.contains("lock '" + Members.lockKey(NAME) + "'"), () -> "the lock: " + message);
                assertFalse(e.isTransient(), () -> "a configuration error is no outage: " + message);
                for (int i = 0; i < 3; i++) {
                    assertEquals(
                            0L,
                            RedisMembers.server(fixture, i).command("EXISTS", Members.lockKey(NAME)),
                            "nothing granted on member " + i);
                }

                // When the member is set to noeviction, a grant comes at its next enlistment
                evicting.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
                AtomicReference<Object> last = new AtomicReference<>();
                try {
                    Members.await("a grant once member 1 is set to noeviction", () -> {
                        last.set(acquire(quorum, "b"));
                        return granted(last.get());
                    });
                } catch (AssertionError timedOut) {
                    throw new AssertionError(timedOut.getMessage() + "; the last reply: " + last.get(), timedOut);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldRefuseAnAcquisitionWhoseCommitEnlistsAnewAndFindsAMemberThatMayEvict(String driver) {
        try (QuorumFixture fixture = driver.equals("lettuce") ? RedisMembers.lettuce(3) : RedisMembers.jedis(3)) {
            QuorumBackend quorum = QuorumBackend.builder(
                            fixture.members().stream().map(m -> m.newBackend()).toList())
                    .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                    .build();
            try (quorum) {
                // Given a member set to evict, and two members that lost their data since this client's
                // enlistment (so the commit finds them not taking part, and enlists the members anew)
                enlistEveryMemberThenSetMember1ToEvict(quorum, fixture);
                RedisMembers.server(fixture, 0).command("DEL", RECORD);
                RedisMembers.server(fixture, 2).command("DEL", RECORD);

                Object reply = acquire(quorum, "a");

                QuorumUnavailableException e =
                        assertInstanceOf(QuorumUnavailableException.class, reply, () -> "refused: " + reply);
                String message = e.getMessage();
                assertTrue(
                        message.contains("member 1 (" + quorumMember(quorum, 1) + ") may evict lock keys: maxmemory "
                                + 100L * 1024 * 1024 + " with maxmemory-policy volatile-ttl"),
                        () -> "the member and its settings: " + message);
                assertFalse(e.isTransient(), () -> "a configuration error is no outage: " + message);
                for (int i = 0; i < 3; i++) {
                    assertEquals(
                            0L,
                            RedisMembers.server(fixture, i).command("EXISTS", Members.lockKey(NAME)),
                            "the phase-1 grant released on member " + i);
                }
            }
        }
    }

    /**
     * The commit finds one of the two members that decided phase 1 without its record while this client
     * still counts a majority as taking part (the third member's grant came after the decision, so its
     * commit was not sent): the acquisition waits for an enlistment that starts after that answer, and is
     * refused for the evicting member that enlistment finds, not answered as a split vote after its
     * resends. Before, the commit was resent at once on this client's out-of-date standings while the
     * enlistment ran in the background (the third member's calls are slow here, as a loaded server's),
     * and the acquisition answered contended.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldRefuseAnAcquisitionWhoseCommitFindsADecidingMemberNotTakingPartWhileAnotherMayEvict(String driver) {
        try (QuorumFixture fixture = driver.equals("lettuce") ? RedisMembers.lettuce(3) : RedisMembers.jedis(3)) {
            List<LockBackend> backends = new ArrayList<>();
            for (LockBackendFixture member : fixture.members()) {
                backends.add(member.newBackend());
            }
            SlowFromNowBackend slow = new SlowFromNowBackend(backends.get(2), Duration.ofMillis(400));
            backends.set(2, slow);
            QuorumBackend quorum = QuorumBackend.builder(backends)
                    .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                    .build();
            try (quorum) {
                // Given member 1 set to evict, member 0 that lost its record since this client's
                // enlistment, and member 2 slower than the straggler grace from now on
                enlistEveryMemberThenSetMember1ToEvict(quorum, fixture);
                RedisMembers.server(fixture, 0).command("DEL", RECORD);
                slow.slowFromNow();

                Object reply = acquire(quorum, "a");

                QuorumUnavailableException e =
                        assertInstanceOf(QuorumUnavailableException.class, reply, () -> "refused: " + reply);
                assertTrue(
                        e.getMessage().contains("member 1 (" + quorumMember(quorum, 1) + ") may evict lock keys"),
                        () -> "the member: " + e.getMessage());
                assertFalse(e.isTransient(), () -> "a configuration error is no outage: " + e.getMessage());
                for (int i = 0; i < 3; i++) {
                    int member = i;
                    Members.await(
                            "the phase-1 grant released on member " + i,
                            () -> Long.valueOf(0)
                                    .equals(RedisMembers.server(fixture, member)
                                            .command("EXISTS", Members.lockKey(NAME))));
                }
            }
        }
    }

    /** A first acquisition (every member joins, so this client counts all three as taking part), then member 1 may evict. */
    private static void enlistEveryMemberThenSetMember1ToEvict(QuorumBackend quorum, QuorumFixture fixture) {
        Object warmUp = acquire(quorum, "warm-up");
        assertTrue(granted(warmUp), () -> "every member joined: " + warmUp);
        quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs("warm-up"))
                .join();
        RedisMembers.server(fixture, 1).command("CONFIG", "SET", "maxmemory", "100mb");
        RedisMembers.server(fixture, 1).command("CONFIG", "SET", "maxmemory-policy", "volatile-ttl");
    }

    /** The quorum's member {@code i}, as its errors name it. */
    private static String quorumMember(QuorumBackend quorum, int i) {
        return quorum.members().get(i).toString();
    }
}
