package io.leasehold.lock.quorum;

import io.leasehold.lock.jedis.JedisLockBackend;
import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.redis.OwningLockBackend;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.RedisTopology;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Quorums over real {@code redis-server}s that the tests start themselves (one standalone server per
 * member, on a free port; stopped when the fixture closes), each member reached by a Lettuce or a Jedis
 * backend of its own, as an application would build it.
 */
final class RedisMembers {

    /** Lettuce's own timeout for a command and the handshake: short, so that a frozen member fails fast. */
    private static final Duration LETTUCE_TIMEOUT = Duration.ofSeconds(5);

    private static final ClientResources RESOURCES = DefaultClientResources.create();

    private RedisMembers() {}

    /** A quorum of {@code size} servers, each member a Lettuce backend. */
    static QuorumFixture lettuce(int size) {
        return quorum("quorum-of-" + size + "-lettuce", size, RedisMembers::lettuceMember);
    }

    /** A quorum of {@code size} servers, each member a Jedis backend. */
    static QuorumFixture jedis(int size) {
        return quorum("quorum-of-" + size + "-jedis", size, RedisMembers::jedisMember);
    }

    /** A quorum of {@code size} servers, each member a backend of {@code driver} ("lettuce" or "jedis"). */
    static QuorumFixture of(String driver, int size) {
        return driver.equals("lettuce") ? lettuce(size) : jedis(size);
    }

    private static QuorumFixture quorum(String name, int size, Function<RedisTopology, LockBackend> member) {
        List<RedisLockBackendFixture<?>> members = new ArrayList<>(size);
        try {
            for (int i = 0; i < size; i++) {
                members.add(
                        RedisLockBackendFixture.owning(name + "-member-" + i, RedisFixtures.startStandalone(), member));
            }
        } catch (RuntimeException e) {
            members.forEach(RedisLockBackendFixture::close);
            throw e;
        }
        return new QuorumFixture(name, members);
    }

    /** The {@code redis-server} of member {@code i} of {@code fixture}, a quorum of this class's (one standalone server each). */
    static RedisNode server(QuorumFixture fixture, int i) {
        return ((RedisLockBackendFixture<?>) fixture.members().get(i))
                .topology()
                .servers()
                .get(0);
    }

    /** A member backend of {@code driver} ("lettuce" or "jedis") reaching {@code endpoint} (a server, or a proxy to it). */
    static LockBackend member(String driver, RedisEndpoint endpoint) {
        return driver.equals("lettuce") ? lettuceMember(endpoint) : jedisMember(endpoint);
    }

    private static LockBackend lettuceMember(RedisTopology redis) {
        return lettuceMember(redis.clientEndpoints().get(0));
    }

    private static LockBackend lettuceMember(RedisEndpoint endpoint) {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(
                RESOURCES,
                RedisURI.builder()
                        .withHost(endpoint.host())
                        .withPort(endpoint.port())
                        .withTimeout(LETTUCE_TIMEOUT)
                        .build());
        return OwningLockBackend.of(
                LettuceLockBackend.create(client), () -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    }

    private static LockBackend jedisMember(RedisTopology server) {
        return jedisMember(server.clientEndpoints().get(0));
    }

    private static LockBackend jedisMember(RedisEndpoint endpoint) {
        redis.clients.jedis.RedisClient client = redis.clients.jedis.RedisClient.builder()
                .hostAndPort(endpoint.host(), endpoint.port())
                .build();
        return OwningLockBackend.of(JedisLockBackend.create(client), client::close);
    }
}
