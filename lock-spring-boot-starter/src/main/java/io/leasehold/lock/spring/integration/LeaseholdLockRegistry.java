package io.leasehold.lock.spring.integration;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;

/**
 * A Spring Integration {@link ExpirableLockRegistry} whose locks are Leasehold locks: a drop-in for
 * {@code RedisLockRegistry} where framework code (aggregators, leader election, idempotent receivers)
 * takes a {@code LockRegistry}.
 * <pre>{@code
 * @Bean
 * LeaseholdLockRegistry lockRegistry(LockClient locks) {
 *     return new LeaseholdLockRegistry(locks, "orders");   // obtain("42") is the lock 'orders:42'
 * }
 * }</pre>
 *
 * <p>As in {@code RedisLockRegistry}, a lock is held by a thread, reentrant on that thread, and only
 * that thread may unlock it (any other gets an {@code IllegalStateException}); within the process,
 * threads wait for each other on a local lock before they ask Redis. Unlike it, a held lock is renewed
 * until it is unlocked (the client's auto-renew), so work longer than the lease time does not lose it;
 * the lease time ({@code ttl}) only bounds how long a crashed process keeps it. A lock whose lease was
 * lost while held (Redis lost it, or another owner took it) makes {@code unlock()} throw
 * {@code ConcurrentModificationException}, as {@code RedisLockRegistry} does when it finds its key gone:
 * the work it protected may have overlapped with another holder's.
 *
 * <p>This class is threadsafe.
 */
public final class LeaseholdLockRegistry implements ExpirableLockRegistry<DistributedLock> {

    private final LockClient client;
    private final String registryKey;
    private final Duration defaultTtl;
    private final Clock clock;
    private final Map<String, LeaseholdRegistryLock> locks = new ConcurrentHashMap<>();

    /** A registry of the locks {@code <registryKey>:<key>}, with the client's default lease time. */
    public LeaseholdLockRegistry(LockClient client, String registryKey) {
        this(client, registryKey, client.defaultOptions().leaseTime());
    }

    /**
     * A registry of the locks {@code <registryKey>:<key>} whose leases last {@code ttl} unless
     * {@link DistributedLock#lock(Duration)} or {@link DistributedLock#tryLock(Duration, Duration)} says
     * otherwise.
     *
     * @throws IllegalArgumentException if {@code registryKey} is blank or {@code ttl} is not a lease time
     */
    public LeaseholdLockRegistry(LockClient client, String registryKey, Duration ttl) {
        this(client, registryKey, ttl, Clock.systemUTC());
    }

    LeaseholdLockRegistry(LockClient client, String registryKey, Duration ttl, Clock clock) {
        this.client = Objects.requireNonNull(client, "client must not be null");
        Objects.requireNonNull(registryKey, "registryKey must not be null");
        if (registryKey.isBlank()) {
            throw new IllegalArgumentException("registryKey must not be blank, but was '" + registryKey + "'");
        }
        this.registryKey = registryKey;
        LockOptions.builder().leaseTime(ttl); // checks it: the same rule as every lease time
        this.defaultTtl = ttl;
        this.clock = clock;
    }

    /**
     * The lock of {@code lockKey} (its {@code toString()}): the same object for the same key until
     * {@link #expireUnusedOlderThan} drops it.
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        Objects.requireNonNull(lockKey, "lockKey must not be null");
        String name = registryKey + ":" + lockKey;
        return locks.computeIfAbsent(name, n -> new LeaseholdRegistryLock(client, n, defaultTtl, clock));
    }

    /** Forgets the locks not held that were last locked more than {@code age} ms ago (or never). */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = clock.millis();
        locks.values().removeIf(lock -> lock.unusedSince(now - age));
    }
}
