package io.leasehold.lock.jedis;

import redis.clients.jedis.Connection;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A Redis Cluster: a channel lives on the master that serves its slot (sharded pub/sub), and a
 * subscriber connection comes from that node's pool in the client. This class is threadsafe.
 */
final class ClusterJedisTopology implements JedisTopology {

    private final ClusterConnectionProvider provider;

    ClusterJedisTopology(ClusterConnectionProvider provider) {
        this.provider = provider;
    }

    @Override
    public Connection connectionFor(String channel) {
        return provider.getConnectionFromSlot(slot(channel));
    }

    @Override
    public int poolMaxTotal() {
        return provider.getNodes().values().stream()
                .mapToInt(pool -> pool.getMaxTotal())
                .min()
                .orElse(-1);
    }

    @Override
    public String nodeOf(String channel) {
        try (Connection connection = connectionFor(channel)) {
            return JedisInternals.hostAndPort(connection).toString();
        }
    }

    @Override
    public int slot(String key) {
        return JedisClusterCRC16.getSlot(key);
    }

    @Override
    public void refresh() {
        provider.renewSlotCache();
    }

    @Override
    public io.leasehold.lock.spi.Deployment deployment() {
        return io.leasehold.lock.spi.Deployment.CLUSTER;
    }

    @Override
    public String toString() {
        return "cluster";
    }
}
