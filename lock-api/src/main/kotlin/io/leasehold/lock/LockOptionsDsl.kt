@file:JvmName("LockOptionsDslKt")

package io.leasehold.lock

import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlin.time.toKotlinDuration

/**
 * Builds [LockOptions] the Kotlin way:
 *
 * ```
 * val options = LockOptions {
 *     leaseTime = 10.seconds
 *     autoRenew = false
 * }
 * ```
 *
 * Unset properties keep the defaults of [LockOptions.defaults]. Every assignment is validated at
 * once by the Java builder, so the error messages are the Java ones
 * (`leaseTime must be greater than 0, but was PT0S`), and combinations are checked at the end.
 *
 * @param forLock the lock these options are for, if known: every error message then names it
 *   (`... but was PT0S (lock 'orders:42')`); the options are not tied to it
 * @throws IllegalArgumentException on an invalid value or combination
 */
public fun LockOptions(forLock: String? = null, block: LockOptionsBuilder.() -> Unit): LockOptions =
    LockOptions.defaults().copy(forLock, block)

/**
 * A copy of these options with the changes made in [block]; see [LockOptions] (the builder function).
 *
 * @throws IllegalArgumentException on an invalid value or combination
 */
public fun LockOptions.copy(forLock: String? = null, block: LockOptionsBuilder.() -> Unit): LockOptions =
    LockOptionsBuilder(this, forLock).apply(block).build()

/**
 * Receiver of the [LockOptions] builder function: Kotlin properties over [LockOptions.Builder].
 * Not threadsafe; use it only inside the builder block.
 */
public class LockOptionsBuilder internal constructor(start: LockOptions, forLock: String?) {

    private val builder: LockOptions.Builder = start.toBuilder().also { if (forLock != null) it.forLock(forLock) }

    /**
     * How long Redis keeps the lock without renewal: at least [LockOptions.MIN_LEASE_TIME], at most a
     * year. Default [LockOptions.DEFAULT_LEASE_TIME].
     */
    public var leaseTime: Duration = start.leaseTime().toKotlinDuration()
        set(value) {
            builder.leaseTime(value.toJavaDuration())
            field = value
        }

    /** Whether the engine renews the lease while it is held. Default [LockOptions.DEFAULT_AUTO_RENEW]. */
    public var autoRenew: Boolean = start.autoRenew()
        set(value) {
            builder.autoRenew(value)
            field = value
        }

    /**
     * The longest a lease may be held, counted from acquisition; `null` (the default) means no bound.
     * Must be positive and, checked at the end, at least [leaseTime].
     */
    public var maxHoldTime: Duration? = start.maxHoldTime().orElse(null)?.toKotlinDuration()
        set(value) {
            if (value == null) builder.noMaxHoldTime() else builder.maxHoldTime(value.toJavaDuration())
            field = value
        }

    /**
     * The shortest time the lock stays taken, counted from acquisition: a release before then leaves it
     * taken in Redis until then (see [LockOptions.minHoldTime]). Zero (the default) or more; checked at
     * the end: at most [maxHoldTime], and at most [leaseTime] when [autoRenew] is off.
     */
    public var minHoldTime: Duration = start.minHoldTime().toKotlinDuration()
        set(value) {
            builder.minHoldTime(value.toJavaDuration())
            field = value
        }

    /**
     * The wait used where a call takes none (such as [withLock]'s default): zero (one attempt) or
     * more, at most a year. Default [LockOptions.DEFAULT_WAIT].
     */
    public var defaultWait: Duration = start.defaultWait().toKotlinDuration()
        set(value) {
            builder.defaultWait(value.toJavaDuration())
            field = value
        }

    internal fun build(): LockOptions = builder.build()
}
