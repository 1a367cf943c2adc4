package io.leasehold.lock;

/**
 * A body that runs under a lock and receives its {@link Lease}, for
 * {@link DistributedLock#callWithLease(java.time.Duration, LeaseCallable)}: the body can pass the
 * {@linkplain Lease#fencingToken() fencing token} to the resource it protects, or check
 * {@link Lease#isValid()} before a write.
 *
 * @param <T> the body's result
 */
@FunctionalInterface
public interface LeaseCallable<T> {

    /** Runs the body with the lease held; may throw anything, which {@code callWithLease} rethrows after releasing. */
    T call(Lease lease) throws Exception;
}
