package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On real {@code redis-server}s: a member of the holder's majority restarts without persistence (it comes
 * back empty, with a new {@code run_id}) while the lease is held on exactly that majority. Another client
 * must not be granted the lock before the holder was told its lease is lost, and its token is larger;
 * with each driver (Lettuce sends the commands it buffered while the member was down once it reconnects).
 */
class QuorumMemberRestartTest {

    private static final String NAME = "orders:restart";
    private static final Duration LEASE = Duration.ofSeconds(3);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldTellTheHolderItsLeaseIsLostBeforeAnotherClientIsGrantedWhenAMemberOfItsMajorityRestartsEmpty(
            String driver) throws Exception {
        try (QuorumFixture fixture = driver.equals("lettuce") ? RedisMembers.lettuce(3) : RedisMembers.jedis(3);
                LockClient a = LockClient.builder(quorum(fixture)).build();
                LockClient b = LockClient.builder(quorum(fixture)).build()) {
            LockOptions renewed =
                    LockOptions.builder().leaseTime(LEASE).autoRenew(true).build();
            a.lock("warm-up", renewed).acquire(Duration.ofSeconds(10)).release(); // in use: every member joined
            // (no renewal: nothing tells the holder of a loss before its lease runs out, so another client's
            // grant before that moment would be a second holder)
            Lease held = a.lock(
                            NAME,
                            LockOptions.builder()
                                    .leaseTime(LEASE)
                                    .autoRenew(false)
                                    .build())
                    .acquire(Duration.ofSeconds(10));
            // Given the lease held on exactly members 0 and 1 (member 2's copy is gone)
            fixture.members().get(2).deleteKey(LockKeys.lockKey("leasehold:", NAME));

            // When member 0 restarts without persistence
            member(fixture, 0)
                    .topology()
                    .masterForKey(LockKeys.lockKey("leasehold:", NAME))
                    .restart();
            Lease second = b.lock(NAME, renewed).acquire(Duration.ofSeconds(20));
            Instant grantedAt = Instant.now();

            // Then the holder was told of its loss before the other client's grant, and the token rose
            assertTrue(held.lost().isDone(), "the holder was told of its loss before another client was granted");
            Instant lostAt = held.lost().get(0, TimeUnit.SECONDS).detectedAt();
            assertTrue(!lostAt.isAfter(grantedAt), "lost at " + lostAt + ", granted by " + grantedAt);
            assertTrue(
                    second.fencingToken() > held.fencingToken(), second.fencingToken() + " > " + held.fencingToken());
            second.release();
        }
    }

    private static QuorumBackend quorum(QuorumFixture fixture) {
        return QuorumBackend.builder(fixture.members().stream()
                        .map(LockBackendFixture::newBackend)
                        .toList())
                .maxLeaseTime(LEASE)
                .build();
    }

    private static RedisLockBackendFixture<?> member(QuorumFixture fixture, int i) {
        return (RedisLockBackendFixture<?>) fixture.members().get(i);
    }
}
