/**
 * The engine behind the public API: acquisition and waiting, leases, batched renewal, loss
 * signalling. <b>Internal: may change without notice</b>; not part of the published Javadoc.
 * Use {@link io.leasehold.lock.LockClient} instead.
 */
@NullMarked
package io.leasehold.lock.internal;

import org.jspecify.annotations.NullMarked;
