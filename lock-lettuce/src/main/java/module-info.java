/**
 * Leasehold's {@code LockBackend} over Lettuce: standalone, Sentinel and Cluster.
 */
module io.leasehold.lock.lettuce {
    requires transitive io.leasehold.lock;
    // LettuceLockBackend's factories take Lettuce's RedisClient and RedisClusterClient.
    requires transitive lettuce.core;
    // Lettuce's own dependencies, which the driver touches directly (a Disposable, the I/O thread type).
    requires reactor.core;
    requires io.netty.common;
    requires static org.jspecify;

    exports io.leasehold.lock.lettuce;
}
