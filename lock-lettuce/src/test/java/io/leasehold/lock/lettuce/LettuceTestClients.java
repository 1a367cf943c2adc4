package io.leasehold.lock.lettuce;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.redis.OwningLockBackend;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisTopology;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Lettuce clients for tests, as an application would build them, all on one set of client
 * resources (event loops are the expensive part; the JVM's exit ends their daemon threads).
 * A backend made here owns its client, so that closing the backend (the fixture does) shuts the
 * client down too.
 */
final class LettuceTestClients {

    /** Lettuce's own timeout for a command and the connect handshake: short, so that a frozen server fails fast. */
    static final Duration LETTUCE_TIMEOUT = Duration.ofSeconds(5);

    static final ClientResources RESOURCES = DefaultClientResources.create();

    private LettuceTestClients() {}

    /** A client for a standalone server or a Sentinel group, on the topology's URI. */
    static RedisClient redisClient(RedisTopology redis) {
        RedisURI uri = RedisURI.create(redis.uri());
        uri.setTimeout(LETTUCE_TIMEOUT);
        return RedisClient.create(RESOURCES, uri);
    }

    /** A client for a cluster, seeded with every master. */
    static RedisClusterClient clusterClient(RedisTopology cluster) {
        List<RedisURI> seeds = cluster.clientEndpoints().stream()
                .map(endpoint -> RedisURI.builder()
                        .withHost(endpoint.host())
                        .withPort(endpoint.port())
                        .withTimeout(LETTUCE_TIMEOUT)
                        .build())
                .collect(Collectors.toList());
        return RedisClusterClient.create(RESOURCES, seeds);
    }

    /** A backend on its own client (standalone or Sentinel) that shuts the client down when closed. */
    static LockBackend owningStandalone(RedisTopology redis) {
        RedisClient client = redisClient(redis);
        return OwningLockBackend.of(LettuceLockBackend.create(client), () -> shutdown(client));
    }

    /** A backend on its own client of the server at {@code endpoint} (a fault proxy's, say) that shuts the client down when closed. */
    static LockBackend owningAt(RedisEndpoint endpoint) {
        RedisClient client = RedisClient.create(
                RESOURCES,
                RedisURI.builder()
                        .withHost(endpoint.host())
                        .withPort(endpoint.port())
                        .withTimeout(LETTUCE_TIMEOUT)
                        .build());
        return OwningLockBackend.of(LettuceLockBackend.create(client), () -> shutdown(client));
    }

    /** A backend on its own cluster client that shuts the client down when closed. */
    static LockBackend owningCluster(RedisTopology cluster) {
        RedisClusterClient client = clusterClient(cluster);
        return OwningLockBackend.of(LettuceLockBackend.create(client), () -> shutdown(client));
    }

    static void shutdown(io.lettuce.core.AbstractRedisClient client) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
