package io.leasehold.lock;

import java.time.Duration;
import java.util.Objects;

/**
 * A snapshot of who holds a lock, as Redis saw it when {@link DistributedLock#inspect()} ran.
 *
 * <p>This class is immutable and threadsafe.
 */
public final class LockInfo {

    private final String lockName;
    private final long fencingToken;
    private final Duration remainingTtl;

    public LockInfo(String lockName, long fencingToken, Duration remainingTtl) {
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.fencingToken = fencingToken;
        this.remainingTtl = Objects.requireNonNull(remainingTtl, "remainingTtl");
    }

    public String lockName() {
        return lockName;
    }

    /** The fencing token of the current holder's lease. */
    public long fencingToken() {
        return fencingToken;
    }

    /** The lock's time to live in Redis when it was read (the holder may renew it). */
    public Duration remainingTtl() {
        return remainingTtl;
    }

    @Override
    public String toString() {
        return "LockInfo{lock='" + lockName + "', token=" + fencingToken + ", ttl=" + remainingTtl + "}";
    }
}
