/**
 * Leasehold's {@code LockBackend} over Jedis ({@code UnifiedJedis}): standalone, Sentinel and Cluster.
 */
module io.leasehold.lock.jedis {
    requires transitive io.leasehold.lock;
    // JedisLockBackend's factories take Jedis' UnifiedJedis and its configuration types.
    requires transitive redis.clients.jedis;
    requires static org.jspecify;

    exports io.leasehold.lock.jedis;
}
