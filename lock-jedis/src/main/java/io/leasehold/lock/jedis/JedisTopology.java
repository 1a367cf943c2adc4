package io.leasehold.lock.jedis;

import java.util.Objects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.providers.ConnectionProvider;
import redis.clients.jedis.providers.PooledConnectionProvider;
import redis.clients.jedis.providers.SentineledConnectionProvider;

/**
 * What differs between a standalone server, a Sentinel-managed master and a cluster: where a
 * subscriber connection comes from, which node a channel lives on, and a key's slot. Connections are
 * always borrowed from the pool of the user's client, never opened beside it.
 *
 * <p>Implementations are threadsafe. {@link #connectionFor} blocks (it borrows and may connect), so
 * it is only called on the backend's own threads.
 */
interface JedisTopology {

    /** How the servers are deployed: told by the kind of connection provider. */
    io.leasehold.lock.spi.Deployment deployment();

    /**
     * The topology of {@code client}, told by the provider that holds its connections: the client
     * classes differ among Jedis 6, 7 and 8, their providers do not.
     *
     * @throws IllegalArgumentException if the client is not a pooled, Sentinel or Cluster client
     */
    static JedisTopology of(UnifiedJedis client) {
        Objects.requireNonNull(client, "client must not be null");
        ConnectionProvider provider = JedisInternals.providerOf(client);
        if (provider instanceof ClusterConnectionProvider) {
            JedisInternals.requireConnectionMembers(true);
            return new ClusterJedisTopology((ClusterConnectionProvider) provider);
        }
        if (provider instanceof SentineledConnectionProvider) {
            JedisInternals.requireConnectionMembers(false);
            // its pool is a private field of the provider: create() reads its size next, and fails there without it
            return new SentinelJedisTopology((SentineledConnectionProvider) provider);
        }
        if (provider instanceof PooledConnectionProvider) {
            JedisInternals.requireConnectionMembers(false);
            return new StandaloneJedisTopology((PooledConnectionProvider) provider);
        }
        throw new IllegalArgumentException("client must be a pooled client for a single server (RedisClient,"
                + " JedisPooled), a Sentinel client (RedisSentinelClient, JedisSentineled) or a Cluster client"
                + " (RedisClusterClient, JedisCluster), but was a "
                + client.getClass().getName() + " over "
                + (provider == null
                        ? "a single connection"
                        : "a " + provider.getClass().getName()));
    }

    /** Borrows a connection to the node that serves {@code channel}; the caller closes it (back to the pool). */
    Connection connectionFor(String channel);

    /** The node that serves {@code channel} (one name for all channels outside a cluster). Blocks like {@link #connectionFor}. */
    String nodeOf(String channel);

    /**
     * The most connections the client's pool (in a cluster: each node's pool) may hold, or a
     * negative number when it is unbounded.
     */
    int poolMaxTotal();

    /** The cluster slot of {@code key}; 0 outside a cluster. */
    default int slot(String key) {
        return 0;
    }

    /** Asks the client to learn the topology again (a cluster after a slot moved); a no-op outside a cluster. */
    default void refresh() {}
}
