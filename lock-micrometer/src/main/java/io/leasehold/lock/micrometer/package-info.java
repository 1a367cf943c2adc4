/**
 * Micrometer metrics for Leasehold: {@link io.leasehold.lock.micrometer.LeaseholdMetrics}, a
 * {@link io.leasehold.lock.LockEventListener} that records the meters named in
 * {@link io.leasehold.lock.micrometer.LeaseholdMeters}.
 */
@NullMarked
package io.leasehold.lock.micrometer;

import org.jspecify.annotations.NullMarked;
