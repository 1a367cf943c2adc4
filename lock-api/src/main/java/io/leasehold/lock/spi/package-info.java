/**
 * What a driver implements: {@link io.leasehold.lock.spi.LockBackend} runs the engine's Lua scripts
 * and subscribes to release channels. Drivers know nothing about locking.
 *
 * <p>Also the seam between the API and the engine, which live in separate modules:
 * {@link io.leasehold.lock.spi.LockEngine} (the service {@link io.leasehold.lock.LockClient#builder}
 * loads, with the builder's {@link io.leasehold.lock.spi.ClientSettings}) and
 * {@link io.leasehold.lock.spi.EngineLease} (what the Kotlin extensions ask of an engine's lease).
 * Only Leasehold's engine implements those two.
 */
@NullMarked
package io.leasehold.lock.spi;

import org.jspecify.annotations.NullMarked;
