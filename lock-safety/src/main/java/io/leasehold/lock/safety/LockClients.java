package io.leasehold.lock.safety;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.jedis.JedisLockBackend;
import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.leasehold.lock.quorum.QuorumBackend;
import io.leasehold.lock.spi.LockBackend;
import io.lettuce.core.RedisURI;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisSentinelClient;

/**
 * Builds a worker's {@link LockClient} over either driver, for a standalone server, a Sentinel group or a
 * quorum of standalone servers ({@link #QUORUM_SCHEME}),
 * as an application would: the clients' own timeouts short enough that a silent server fails a call in
 * seconds (the engine retries within the wait), and the engine's defaults otherwise.
 */
final class LockClients {

    /** A driver call that gets no answer fails after this; the engine's own command timeout is the same. */
    static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(2);

    private LockClients() {}

    /** The client and whatever must be closed after it. */
    record Opened(LockClient locks, AutoCloseable redis) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            try {
                locks.close();
            } finally {
                redis.close();
            }
        }
    }

    /** The scheme of a quorum's URI: {@code quorum://h1:p1,h2:p2,h3:p3}, one address per member. */
    static final String QUORUM_SCHEME = "quorum://";

    /** The URI of a quorum whose members are at {@code addresses} ({@code host:port} each). */
    static String quorumUri(java.util.List<String> addresses) {
        return QUORUM_SCHEME + String.join(",", addresses);
    }

    static Opened open(Driver driver, String uri, LockEventListener listener) {
        if (uri.startsWith(QUORUM_SCHEME)) {
            return quorum(driver, uri, listener);
        }
        return switch (driver) {
            case LETTUCE -> lettuce(uri, listener);
            case JEDIS -> jedis(uri, listener);
        };
    }

    private static Opened lettuce(String uri, LockEventListener listener) {
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(CLIENT_TIMEOUT);
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redisUri);
        return new Opened(
                build(LettuceLockBackend.create(client), listener),
                () -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    }

    private static Opened jedis(String uri, LockEventListener listener) {
        JedisClientConfig config = DefaultJedisClientConfig.builder()
                .socketTimeoutMillis((int) CLIENT_TIMEOUT.toMillis())
                .connectionTimeoutMillis((int) CLIENT_TIMEOUT.toMillis())
                .build();
        if (uri.startsWith("redis-sentinel://")) {
            // redis-sentinel://h1:p1,h2:p2,h3:p3#master
            String hosts = uri.substring("redis-sentinel://".length(), uri.indexOf('#'));
            Set<HostAndPort> sentinels = new HashSet<>();
            for (String hostPort : hosts.split(",")) {
                sentinels.add(HostAndPort.from(hostPort));
            }
            RedisSentinelClient client = RedisSentinelClient.builder()
                    .masterName(uri.substring(uri.indexOf('#') + 1))
                    .sentinels(sentinels)
                    .clientConfig(config)
                    .sentinelClientConfig(config)
                    .build();
            return new Opened(build(JedisLockBackend.create(client), listener), client::close);
        }
        URI parsed = URI.create(uri);
        RedisClient client = RedisClient.builder()
                .hostAndPort(parsed.getHost(), parsed.getPort())
                .clientConfig(config)
                .build();
        return new Opened(build(JedisLockBackend.create(client), listener), client::close);
    }

    /**
     * A {@link QuorumBackend} over one standalone backend of {@code driver} per member address, with the
     * quorum scenarios' {@link Scenario#QUORUM_MAX_LEASE}. Each member gets its own driver client, as an
     * application would build it; the quorum closes the members' backends, the returned closer their clients.
     */
    private static Opened quorum(Driver driver, String uri, LockEventListener listener) {
        java.util.List<LockBackend> members = new java.util.ArrayList<>();
        java.util.List<AutoCloseable> clients = new java.util.ArrayList<>();
        for (String address : uri.substring(QUORUM_SCHEME.length()).split(",")) {
            HostAndPort hostPort = HostAndPort.from(address);
            Member member = switch (driver) {
                case LETTUCE -> lettuceMember(hostPort);
                case JEDIS -> jedisMember(hostPort);
            };
            members.add(member.backend());
            clients.add(member.client());
        }
        QuorumBackend backend = QuorumBackend.builder(members)
                .maxLeaseTime(Scenario.QUORUM_MAX_LEASE)
                .build();
        return new Opened(build(backend, listener), () -> {
            for (AutoCloseable client : clients) {
                client.close();
            }
        });
    }

    /** One quorum member: its backend, and the driver client to close after the quorum closed the backend. */
    private record Member(LockBackend backend, AutoCloseable client) {}

    private static Member lettuceMember(HostAndPort address) {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(RedisURI.builder()
                .withHost(address.getHost())
                .withPort(address.getPort())
                .withTimeout(CLIENT_TIMEOUT)
                .build());
        return new Member(
                LettuceLockBackend.create(client), () -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    }

    private static Member jedisMember(HostAndPort address) {
        RedisClient client = RedisClient.builder()
                .hostAndPort(address.getHost(), address.getPort())
                .clientConfig(DefaultJedisClientConfig.builder()
                        .socketTimeoutMillis((int) CLIENT_TIMEOUT.toMillis())
                        .connectionTimeoutMillis((int) CLIENT_TIMEOUT.toMillis())
                        .build())
                .build();
        return new Member(JedisLockBackend.create(client), client::close);
    }

    private static LockClient build(LockBackend backend, LockEventListener listener) {
        return LockClient.builder(backend)
                .listener(listener)
                .commandTimeout(CLIENT_TIMEOUT)
                .build();
    }
}
