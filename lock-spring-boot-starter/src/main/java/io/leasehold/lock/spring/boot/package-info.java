/**
 * Leasehold in a Spring Boot application: the auto-configured {@link io.leasehold.lock.LockClient}
 * ({@link io.leasehold.lock.spring.boot.LeaseholdAutoConfiguration}) and its {@code leasehold.*}
 * properties ({@link io.leasehold.lock.spring.boot.LeaseholdProperties}).
 */
@NullMarked
package io.leasehold.lock.spring.boot;

import org.jspecify.annotations.NullMarked;
