/**
 * {@link io.leasehold.lock.inmemory.InMemoryLockBackend}: a {@link io.leasehold.lock.spi.LockBackend}
 * that keeps the lock keys in memory and runs the Lua scripts' semantics in Java, with pub/sub, key
 * expiry on a {@link io.leasehold.lock.inmemory.ManualClock} the test moves, and fault switches
 * (unavailable, latency, slow subscribe confirmation, lost reply, expire, flush, foreign keys). It
 * is what Leasehold's own engine tests run on, and what your unit tests can run on instead of Redis.
 */
@NullMarked
package io.leasehold.lock.inmemory;

import org.jspecify.annotations.NullMarked;
