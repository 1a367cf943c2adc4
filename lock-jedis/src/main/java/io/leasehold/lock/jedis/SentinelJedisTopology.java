package io.leasehold.lock.jedis;

import redis.clients.jedis.Connection;
import redis.clients.jedis.providers.SentineledConnectionProvider;

/**
 * A Sentinel-managed master: subscriber connections come from the pool of the master the client
 * currently follows, so that after a failover a new subscriber reaches the promoted master.
 * This class is threadsafe.
 */
final class SentinelJedisTopology implements JedisTopology {

    private final SentineledConnectionProvider provider;

    SentinelJedisTopology(SentineledConnectionProvider provider) {
        this.provider = provider;
    }

    @Override
    public Connection connectionFor(String channel) {
        // the provider keeps one pool, for the master it currently follows
        return provider.getConnection();
    }

    @Override
    public int poolMaxTotal() {
        return JedisInternals.currentMasterPool(provider).getMaxTotal();
    }

    @Override
    public String nodeOf(String channel) {
        return "master";
    }

    @Override
    public io.leasehold.lock.spi.Deployment deployment() {
        return io.leasehold.lock.spi.Deployment.SENTINEL;
    }

    @Override
    public String toString() {
        return "sentinel";
    }
}
