package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.Lease

/**
 * The latest end of [lease]'s validity that [Lease.remaining] tells from now until it reads zero, each
 * reading counted from just before it was taken (so that none seems to reach later than it does); the
 * moment of the first reading if the validity had already ended.
 */
internal fun latestValidityEnd(lease: Lease): Long {
    val deadline = System.nanoTime() + Timing.AWAIT.toNanos()
    var latest: Long? = null
    while (true) {
        val before = System.nanoTime()
        val left = lease.remaining()
        if (left.isZero) {
            return latest ?: before
        }
        val end = before + left.toNanos()
        latest = if (latest == null || end - latest > 0) end else latest
        if (before - deadline > 0) {
            throw AssertionError("timed out after ${Timing.AWAIT} waiting for the validity to run out (remaining() still $left)")
        }
        Thread.sleep(ScenarioContext.POLL_MILLIS)
    }
}
