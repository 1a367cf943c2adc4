package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same server twice under two backends (two addresses of one server, two clients of one store): the
 * members' probes answer the same run_id, and the quorum refuses every acquisition with an error that is
 * no outage (not transient), naming the rule, both members and the run_id; the duplicate never counts
 * twice toward a majority: nothing is granted on any member.
 */
class QuorumSameServerTest {

    private static final String NAME = "orders:42";
    private static final long LEASE_MS = 2_000;
    private static final String RECORD = LockKeys.quorumRecordKey(Members.PREFIX);

    private final Members inMemory = new Members(2);

    @AfterEach
    void close() {
        inMemory.close();
    }

    private static Object acquire(QuorumBackend quorum, String owner) {
        try {
            return quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(owner, LEASE_MS, "1"))
                    .join();
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    /** Asserts {@code reply} is the refusal of a quorum whose members {@code first} and {@code second} are one server. */
    private static void assertRefusedAsSameServer(
            Object reply, int first, LockBackend firstMember, int second, LockBackend secondMember, String runId) {
        QuorumUnavailableException e =
                assertInstanceOf(QuorumUnavailableException.class, reply, () -> "refused: " + reply);
        String message = e.getMessage();
        assertTrue(message.contains("a quorum's members must be distinct Redis servers"), () -> "the rule: " + message);
        assertTrue(
                message.contains("members " + first + " (" + firstMember + ") and " + second + " (" + secondMember
                        + ") are the same server (run_id " + runId + ")"),
                () -> "both members and the run_id: " + message);
        assertTrue(message.contains("lock '" + Members.lockKey(NAME) + "'"), () -> "the lock: " + message);
        assertFalse(e.isTransient(), () -> "a configuration error is no outage: " + message);
    }

    @Test
    void shouldRefuseAcquisitionsWhileTwoMembersAreTheSameServer() {
        LockBackend first = inMemory.fixtures.get(0).newBackend();
        LockBackend other = inMemory.fixtures.get(1).newBackend();
        LockBackend again = inMemory.fixtures.get(0).newBackend(); // another client of member 0's store
        try (QuorumBackend quorum = QuorumBackend.of(first, other, again)) {
            String runId = runId(first);

            for (int attempt = 0; attempt < 2; attempt++) { // refused while it lasts, not once
                assertRefusedAsSameServer(acquire(quorum, "a" + attempt), 0, first, 2, again, runId);
            }
            assertTrue(inMemory.store(0).get(Members.lockKey(NAME)).isEmpty(), "nothing granted on member 0");
            assertTrue(inMemory.store(1).get(Members.lockKey(NAME)).isEmpty(), "nothing granted on member 1");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldRefuseAcquisitionsWhileTwoMembersAreTheSameRedisServerUnderTwoAddresses(String driver) {
        try (QuorumFixture fixture = driver.equals("lettuce") ? RedisMembers.lettuce(2) : RedisMembers.jedis(2)) {
            RedisEndpoint endpoint = RedisMembers.server(fixture, 0).endpoint();
            LockBackend first = fixture.members().get(0).newBackend();
            LockBackend other = fixture.members().get(1).newBackend();
            LockBackend again = RedisMembers.member(driver, new RedisEndpoint("localhost", endpoint.port()));
            try (QuorumBackend quorum = QuorumBackend.builder(first, other, again)
                    .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                    .build()) {
                String runId = runId(first);

                for (int attempt = 0; attempt < 2; attempt++) {
                    assertRefusedAsSameServer(acquire(quorum, "a" + attempt), 0, first, 2, again, runId);
                }
                for (int i = 0; i < 2; i++) {
                    assertEquals(
                            0L,
                            RedisMembers.server(fixture, i).command("EXISTS", Members.lockKey(NAME)),
                            "nothing granted on member " + i);
                }
            }
        }
    }

    /** The run_id of the server behind {@code member}, as quorum-enlist.lua's probe tells it. */
    private static String runId(LockBackend member) {
        List<?> probe = (List<?>) member.eval(Members.ENLIST, List.of(RECORD), List.of("probe", ""))
                .join();
        return (String) probe.get(4);
    }
}
