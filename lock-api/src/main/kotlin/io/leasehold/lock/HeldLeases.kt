package io.leasehold.lock

import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext

/**
 * The leases that [withLock] holds for the current coroutine, keyed by lock handle (two handles
 * from the same client for the same name are `equals`, so either finds the lease).
 *
 * Reentrancy by coroutine context: [withLock] runs its block in a context carrying a copy of this
 * element with one more entry. Children of the block inherit that context and so see the lease; a
 * sibling launched outside the block has the parent's context, which never had the entry. The
 * element is immutable (copy-on-add) for exactly that reason: a shared mutable map would leak
 * the lease to siblings and to the caller after the block ends.
 *
 * This class is immutable and threadsafe.
 */
internal class HeldLeases private constructor(
    private val leases: Map<DistributedLock, Lease>,
) : AbstractCoroutineContextElement(Key) {

    internal companion object Key : CoroutineContext.Key<HeldLeases> {
        private val EMPTY = HeldLeases(emptyMap())

        /** The leases held in [context]; empty when it has none. */
        fun of(context: CoroutineContext): HeldLeases = context[Key] ?: EMPTY
    }

    /** The lease held on [lock] (or a handle equal to it), if any. */
    fun leaseFor(lock: DistributedLock): Lease? = leases[lock]

    /** A new element with [lease] held on [lock]; this one is unchanged. */
    fun with(lock: DistributedLock, lease: Lease): HeldLeases = HeldLeases(leases + (lock to lease))

    override fun toString(): String =
        leases.entries.joinToString(prefix = "HeldLeases(", postfix = ")") { (lock, lease) ->
            "'${lock.name()}'=token ${lease.fencingToken()}"
        }
}
