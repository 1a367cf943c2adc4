package io.leasehold.lock.jedis;

import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/** One server: every channel on the client's own pool. This class is threadsafe. */
final class StandaloneJedisTopology implements JedisTopology {

    private final RedisClient client;

    StandaloneJedisTopology(RedisClient client) {
        this.client = client;
    }

    @Override
    public UnifiedJedis client() {
        return client;
    }

    @Override
    public Connection connectionFor(String channel) {
        return client.getPool().getResource();
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
