package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisNode;
import java.time.Duration;
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
            RedisNode evicting = node(fixture, 1);
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
                            node(fixture, i).command("EXISTS", Members.lockKey(NAME)),
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
                Object warmUp = acquire(quorum, "warm-up");
                assertTrue(granted(warmUp), () -> "every member joined: " + warmUp);
                quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs("warm-up"))
                        .join();
                // Given a member set to evict, and two members that lost their data since this client's
                // enlistment (so the commit finds them not taking part, and enlists the members anew)
                node(fixture, 1).command("CONFIG", "SET", "maxmemory", "100mb");
                node(fixture, 1).command("CONFIG", "SET", "maxmemory-policy", "volatile-ttl");
                node(fixture, 0).command("DEL", RECORD);
                node(fixture, 2).command("DEL", RECORD);

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
                            node(fixture, i).command("EXISTS", Members.lockKey(NAME)),
                            "the phase-1 grant released on member " + i);
                }
            }
        }
    }

    /** The quorum's member {@code i}, as its errors name it. */
    private static String quorumMember(QuorumBackend quorum, int i) {
        return quorum.members().get(i).toString();
    }

    private static RedisNode node(QuorumFixture fixture, int i) {
        return ((RedisLockBackendFixture<?>) fixture.members().get(i))
                .topology()
                .masterForKey(RECORD);
    }
}
