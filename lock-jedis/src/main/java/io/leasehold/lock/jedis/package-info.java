/**
 * The Jedis driver: {@link io.leasehold.lock.jedis.JedisLockBackend} over a Jedis 8 client
 * ({@code RedisClient}, {@code RedisSentinelClient}, {@code RedisClusterClient}).
 */
@NullMarked
package io.leasehold.lock.jedis;

import org.jspecify.annotations.NullMarked;
