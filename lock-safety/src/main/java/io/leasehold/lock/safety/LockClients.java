package io.leasehold.lock.safety;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.jedis.JedisLockBackend;
import io.leasehold.lock.lettuce.LettuceLockBackend;
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
 * Builds a worker's {@link LockClient} over either driver, for a standalone server or a Sentinel group,
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

    static Opened open(Driver driver, String uri, LockEventListener listener) {
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

    private static LockClient build(LockBackend backend, LockEventListener listener) {
        return LockClient.builder(backend)
                .listener(listener)
                .commandTimeout(CLIENT_TIMEOUT)
                .build();
    }
}
