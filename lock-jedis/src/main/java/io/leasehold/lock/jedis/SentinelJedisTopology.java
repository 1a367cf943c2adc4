package io.leasehold.lock.jedis;

import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.util.Pool;

/**
 * A Sentinel-managed master: subscriber connections come from the pool of the master the client
 * currently follows, so that after a failover a new subscriber reaches the promoted master.
 * This class is threadsafe.
 */
final class SentinelJedisTopology implements JedisTopology {

    private final RedisSentinelClient client;

    SentinelJedisTopology(RedisSentinelClient client) {
        this.client = client;
    }

    @Override
    public Connection connectionFor(String channel) {
        // The client keeps one pool, for the master it currently follows; the map holds just that one.
        Pool<Connection> master =
                client.getPrimaryNodesConnectionMap().values().iterator().next();
        return master.getResource();
    }

    @Override
    public int poolMaxTotal() {
        return client.getPrimaryNodesConnectionMap().values().iterator().next().getMaxTotal();
    }

    @Override
    public String nodeOf(String channel) {
        return "master";
    }

    @Override
    public String toString() {
        return "sentinel";
    }
}
