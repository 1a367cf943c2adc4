/**
 * Leasehold in Spring applications: {@link io.leasehold.lock.spring.Locked} methods and their
 * {@link io.leasehold.lock.spring.LockedLease}.
 */
@NullMarked
package io.leasehold.lock.spring;

import org.jspecify.annotations.NullMarked;
