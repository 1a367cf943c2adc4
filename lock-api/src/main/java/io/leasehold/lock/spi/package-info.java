/**
 * What a driver implements: {@link io.leasehold.lock.spi.LockBackend} runs the engine's Lua scripts
 * and subscribes to release channels. Drivers know nothing about locking.
 */
@NullMarked
package io.leasehold.lock.spi;

import org.jspecify.annotations.NullMarked;
