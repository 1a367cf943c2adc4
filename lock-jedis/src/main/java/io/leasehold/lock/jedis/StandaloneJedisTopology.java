package io.leasehold.lock.jedis;

import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;

/** One server: every channel on the client's own pool. This class is threadsafe. */
final class StandaloneJedisTopology implements JedisTopology {

    private final RedisClient client;

    StandaloneJedisTopology(RedisClient client) {
        this.client = client;
    }

    @Override
    public Connection connectionFor(String channel) {
        return client.getPool().getResource();
    }

    @Override
    public int poolMaxTotal() {
        return client.getPool().getMaxTotal();
    }

    @Override
    public String nodeOf(String channel) {
        return "server";
    }

    @Override
    public String toString() {
        return "standalone";
    }
}
