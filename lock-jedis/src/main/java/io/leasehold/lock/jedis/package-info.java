/**
 * The Jedis driver: {@link io.leasehold.lock.jedis.JedisLockBackend} over a Jedis 6.0 to 8.x client
 * ({@code RedisClient}, {@code RedisSentinelClient}, {@code RedisClusterClient}; in Jedis 6 and 7
 * {@code JedisPooled}, {@code JedisSentineled}, {@code JedisCluster}).
 */
@NullMarked
package io.leasehold.lock.jedis;

import org.jspecify.annotations.NullMarked;
