/**
 * Leasehold under Spring Integration: {@link io.leasehold.lock.spring.integration.LeaseholdLockRegistry},
 * a {@code LockRegistry} whose locks are Leasehold locks.
 */
@NullMarked
package io.leasehold.lock.spring.integration;

import org.jspecify.annotations.NullMarked;
