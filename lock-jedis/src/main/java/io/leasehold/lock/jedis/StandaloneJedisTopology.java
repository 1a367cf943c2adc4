package io.leasehold.lock.jedis;

import redis.clients.jedis.Connection;
import redis.clients.jedis.providers.PooledConnectionProvider;

/** One server: every channel on the client's own pool. This class is threadsafe. */
final class StandaloneJedisTopology implements JedisTopology {

    private final PooledConnectionProvider provider;

    StandaloneJedisTopology(PooledConnectionProvider provider) {
        this.provider = provider;
    }

    @Override
    public Connection connectionFor(String channel) {
        return provider.getPool().getResource();
    }

    @Override
    public int poolMaxTotal() {
        return provider.getPool().getMaxTotal();
    }

    @Override
    public String nodeOf(String channel) {
        return "server";
    }

    @Override
    public io.leasehold.lock.spi.Deployment deployment() {
        return io.leasehold.lock.spi.Deployment.STANDALONE;
    }

    @Override
    public String toString() {
        return "standalone";
    }
}
