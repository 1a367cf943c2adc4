/**
 * The Lettuce driver: {@link io.leasehold.lock.lettuce.LettuceLockBackend} runs Leasehold over the
 * application's own Lettuce {@code RedisClient} (standalone or Sentinel) or
 * {@code RedisClusterClient}.
 */
@NullMarked
package io.leasehold.lock.lettuce;

import org.jspecify.annotations.NullMarked;
