/**
 * Leasehold: a Redis distributed lock that tells you when you have lost it.
 *
 * <p>Start with {@link io.leasehold.lock.LockClient}, get a {@link io.leasehold.lock.DistributedLock}
 * by name, and hold it as a {@link io.leasehold.lock.Lease}. Every lease carries a fencing token and
 * a {@link io.leasehold.lock.Lease#lost()} signal.
 */
@NullMarked
package io.leasehold.lock;

import org.jspecify.annotations.NullMarked;
