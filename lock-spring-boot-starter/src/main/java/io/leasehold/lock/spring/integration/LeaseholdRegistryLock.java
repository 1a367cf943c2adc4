package io.leasehold.lock.spring.integration;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockInterruptedException;
import io.leasehold.lock.LockOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * One lock of a {@link LeaseholdLockRegistry}: a local {@link ReentrantLock} (the owner thread, its hold
 * count, and the process's other threads waiting their turn) and, while it is held, one Leasehold lease.
 * The lease is taken by the first hold and released by the last unlock. {@link #lease} and
 * {@link #lastLockedMillis} are written only by the thread that holds {@link #local}.
 */
final class LeaseholdRegistryLock implements DistributedLock {

    /** How long "wait until it is free" waits per ask: the longest wait Leasehold takes (a year). */
    private static final Duration FOREVER = Duration.ofDays(365);

    private final LockClient client;
    private final String name;
    private final Duration defaultTtl;
    private final Clock clock;
    private final ReentrantLock local = new ReentrantLock();
    private volatile @Nullable Lease lease;
    private volatile long lastLockedMillis = -1;

    LeaseholdRegistryLock(LockClient client, String name, Duration defaultTtl, Clock clock) {
        this.client = client;
        this.name = name;
        this.defaultTtl = defaultTtl;
        this.clock = clock;
    }

    @Override
    public void lock() {
        lock(defaultTtl);
    }

    /** Waits until it holds the lock, not ending on an interrupt (the flag is set again when it returns). */
    @Override
    public void lock(Duration ttl) {
        io.leasehold.lock.DistributedLock lock = client.lock(name, options(ttl));
        local.lock();
        if (local.getHoldCount() > 1) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    held(untilFree(lock));
                    return;
                } catch (LockInterruptedException e) {
                    Thread.interrupted(); // clear it, wait on, set it again at the end
                    interrupted = true;
                }
            }
        } catch (RuntimeException failed) {
            local.unlock();
            throw failed;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        if (local.getHoldCount() > 1) {
            return;
        }
        io.leasehold.lock.DistributedLock lock = client.lock(name, options(defaultTtl));
        takeLease(() -> Optional.of(untilFree(lock)));
    }

    @Override
    public boolean tryLock() {
        try {
            return tryLock(Duration.ZERO, defaultTtl);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(Math.max(0, time))), defaultTtl);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        io.leasehold.lock.DistributedLock lock = client.lock(name, options(ttl));
        long deadline = System.nanoTime() + waitTime.toNanos();
        if (!local.tryLock(waitTime.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            return true;
        }
        return takeLease(() -> lock.tryAcquire(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
    }

    /** Asks Redis for the lease, once or waiting. */
    private interface LeaseAsk {
        Optional<Lease> ask();
    }

    /**
     * Asks for the lease while the current thread holds the local lock for the first time: keeps it when
     * given; otherwise (none, an interrupt, a failure) lets the local lock go, and says so.
     *
     * @throws InterruptedException if the ask was interrupted (the interrupt flag is then clear)
     */
    private boolean takeLease(LeaseAsk ask) throws InterruptedException {
        try {
            Optional<Lease> taken = ask.ask();
            if (taken.isPresent()) {
                held(taken.get());
                return true;
            }
            local.unlock();
            return false;
        } catch (LockInterruptedException interrupted) {
            local.unlock();
            Thread.interrupted();
            throw (InterruptedException) interrupted.getCause();
        } catch (RuntimeException failed) {
            local.unlock();
            throw failed;
        }
    }

    /** The lease of {@code lock}, waited for as long as it takes (asking again after each year). */
    private static Lease untilFree(io.leasehold.lock.DistributedLock lock) {
        while (true) {
            try {
                return lock.acquire(FOREVER);
            } catch (io.leasehold.lock.LockTimeoutException e) {
                // a year went by: ask again
            }
        }
    }

    /**
     * Ends one hold; the last one releases the lease.
     *
     * @throws IllegalStateException           if the current thread does not hold the lock
     * @throws ConcurrentModificationException if the lease was lost while held: the work it protected may
     *                                         have overlapped with another holder's
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalStateException("You do not own lock at " + name);
        }
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        Lease held = lease;
        lease = null;
        try {
            if (held != null && !held.release() && held.lost().isDone()) {
                throw new ConcurrentModificationException("The lock " + name + " was lost while held ("
                        + held.lost().join().reason() + "): the integrity of the data it protected may have"
                        + " been compromised");
            }
        } finally {
            local.unlock();
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Conditions are not supported");
    }

    /** Not held, and last locked before {@code millis} (or never). */
    boolean unusedSince(long millis) {
        return !local.isLocked() && lastLockedMillis < millis;
    }

    private void held(Lease taken) {
        lease = taken;
        lastLockedMillis = clock.millis();
    }

    private LockOptions options(Duration ttl) {
        return client.defaultOptions().toBuilder().forLock(name).leaseTime(ttl).build();
    }

    @Override
    public String toString() {
        return "LeaseholdRegistryLock[" + name + (local.isLocked() ? ", held" : "") + "]";
    }
}
