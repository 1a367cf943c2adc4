package io.leasehold.lock.testkit.conformance

import java.time.Duration

/**
 * The time budgets of the suite. The suite runs on noisy shared machines, against an in-memory
 * store and real Redis alike, so it never asserts absolute speed: it waits for eventual conditions
 * with generous deadlines, and keeps leases short only where expiry is the point.
 */
internal object Timing {
    /** Deadline for anything that should happen "soon" (a loss signal, a release, a wake-up). */
    val AWAIT: Duration = Duration.ofSeconds(10)

    /** Wait passed to acquisitions that are expected to succeed. */
    val ACQUIRE_WAIT: Duration = Duration.ofSeconds(10)

    /** Command timeout of ordinary clients: far above a loopback round trip, far below the deadlines. */
    val COMMAND_TIMEOUT: Duration = Duration.ofSeconds(2)

    /** Command timeout of clients in scenarios that lose replies or cut the backend off. */
    val FAST_COMMAND_TIMEOUT: Duration = Duration.ofMillis(500)

    /** A lease short enough to expire (or be renewed several times) within a test. */
    val SHORT_LEASE: Duration = Duration.ofMillis(800)

    /** A lease that outlives any test: only a release (or a fault) can end it. */
    val LONG_LEASE: Duration = Duration.ofSeconds(30)

    /** A wait that is meant to time out. */
    val SHORT_WAIT: Duration = Duration.ofMillis(300)

    /** Slack allowed on top of a bound the API states (a wait plus one command timeout). */
    val SLACK: Duration = Duration.ofSeconds(5)
}
