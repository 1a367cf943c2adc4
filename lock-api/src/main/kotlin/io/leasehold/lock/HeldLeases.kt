package io.leasehold.lock

import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext

/**
 * The leases that [withLock] holds for the current coroutine, keyed by lock handle (two handles
 * from the same client for the same name are `equals`, so either finds the lease), each with how many
 * nested [withLock] blocks of that lock the coroutine runs in (for [holdCountInCurrentCoroutine]).
 *
 * Reentrancy by coroutine context: [withLock] runs its block in a context carrying a copy of this
 * element with one more entry (or, when it re-enters, one more level). Children of the block inherit
 * that context and so see the lease; a sibling launched outside the block has the parent's context,
 * which never had the entry. The element is immutable (copy-on-add) for exactly that reason: a
 * shared mutable map would leak the lease to siblings and to the caller after the block ends.
 *
 * This class is immutable and threadsafe.
 */
internal class HeldLeases private constructor(
    private val holds: Map<DistributedLock, Hold>,
) : AbstractCoroutineContextElement(Key) {

    /** A lease and the number of nested [withLock] blocks running under it (1 for the outermost). */
    private class Hold(val lease: Lease, val depth: Int)

    internal companion object Key : CoroutineContext.Key<HeldLeases> {
        private val EMPTY = HeldLeases(emptyMap())

        /** The leases held in [context]; empty when it has none. */
        fun of(context: CoroutineContext): HeldLeases = context[Key] ?: EMPTY
    }

    /** The lease held on [lock] (or a handle equal to it), if any. */
    fun leaseFor(lock: DistributedLock): Lease? = holds[lock]?.lease

    /** How many nested [withLock] blocks of [lock] hold its lease here; 0 if none. */
    fun depthOf(lock: DistributedLock): Int = holds[lock]?.depth ?: 0

    /** A new element with [lease] freshly held on [lock] (depth 1); this one is unchanged. */
    fun with(lock: DistributedLock, lease: Lease): HeldLeases = HeldLeases(holds + (lock to Hold(lease, 1)))

    /** A new element one level deeper on [lock], whose lease must be held here; this one is unchanged. */
    fun reentered(lock: DistributedLock): HeldLeases {
        val hold = checkNotNull(holds[lock]) { "lock '${lock.name()}' must be held to re-enter it, but was not" }
        return HeldLeases(holds + (lock to Hold(hold.lease, hold.depth + 1)))
    }

    override fun toString(): String =
        holds.entries.joinToString(prefix = "HeldLeases(", postfix = ")") { (lock, hold) ->
            "'${lock.name()}'=token ${hold.lease.fencingToken()} x${hold.depth}"
        }
}
