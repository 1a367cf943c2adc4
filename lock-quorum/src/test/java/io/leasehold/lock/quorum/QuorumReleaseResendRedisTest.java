package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On real {@code redis-server}s: a member that was down when a lease was released gets the release once
 * it is back, long before the lease's TTL would have freed the lock there. The member stays down until
 * its driver gave up on the first send (Lettuce keeps a command while it reconnects, until its command
 * timeout), so that only the quorum's resend can have released it.
 */
class QuorumReleaseResendRedisTest {

    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final String NAME = "resent";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldReleaseOnAMemberThatWasDownAtTheReleaseOnceItIsBack(String driver) throws Exception {
        try (QuorumFixture fixture = driver.equals("lettuce") ? RedisMembers.lettuce(3) : RedisMembers.jedis(3);
                ProxiedMembers proxied = new ProxiedMembers(fixture, driver)) {
            QuorumBackend quorum = QuorumBackend.of(proxied.backends());
            try (LockClient client = LockClient.create(quorum)) {
                Lease lease = client.lock(
                                NAME, LockOptions.builder().leaseTime(LEASE).build())
                        .acquire(Duration.ofSeconds(10));
                String key = LockKeys.lockKey("leasehold:", NAME);
                assertNotNull(RedisMembers.server(fixture, 2).command("GET", key), "the lease has a copy on member 2");

                // When member 2 is down as the lease is released, until its driver gives up on the release
                proxied.proxy(2).refuseNewConnections();
                proxied.proxy(2).cutConnections();
                assertTrue(lease.release(), "released by the majority that answered");
                Eventually.until("the release failed on member 2", () -> quorum.pendingReleaseResends() == 1);
                assertNotNull(RedisMembers.server(fixture, 2).command("GET", key), "member 2 still holds the copy");

                // Then once it is back, the copy there goes, long before its 60 s TTL
                proxied.proxy(2).resume();
                Eventually.until(
                        () -> "the copy on member 2 released, PTTL "
                                + RedisMembers.server(fixture, 2).command("PTTL", key),
                        () -> RedisMembers.server(fixture, 2).command("GET", key) == null);
                Eventually.until("no resend left", () -> quorum.pendingReleaseResends() == 0);
            }
        }
    }
}
