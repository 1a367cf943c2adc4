package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.testkit.LockBackendFixture.Fault
import java.time.Duration

// G4: remaining() counts from when the request was sent, minus a drift margin: never more than Redis's TTL.

internal val validityScenarios: List<Scenario> = listOf(

    scenario("shouldNeverReportMoreRemainingThanTrueTtl", "G4") {
        // Given a held lease without renewal (so the TTL only goes down)
        val leaseTime = Duration.ofSeconds(10)
        val a = newClient()
        val lease = a.lock(lockName, options(leaseTime = leaseTime, autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        repeat(5) { i ->
            // When Redis's TTL is read first and the lease's remaining() after it
            val ttl = a.lock(lockName).inspect().present("inspect() of a held lock").remainingTtl()
            val remaining = lease.remaining()
            // Then the lease never claims more time than Redis still gives it
            withClue("remaining() read after inspect() saw TTL $ttl (read $i)") {
                remaining shouldBeLessThanOrEqualTo ttl
                remaining shouldBeGreaterThan Duration.ZERO
                remaining shouldBeLessThanOrEqualTo leaseTime
            }
        }
        withClue("release()") { lease.release() shouldBe true }
        withClue("remaining() after release") { lease.remaining() shouldBe Duration.ZERO }
        withClue("isValid() after release") { lease.isValid shouldBe false }
    },

    scenario("shouldNotCountLatencyAsValidity", "G4", Fault.LATENCY) {
        // Given every call takes at least 300 ms before it runs
        val latency = Duration.ofMillis(300)
        val leaseTime = Duration.ofSeconds(3)
        val a = newClient(commandTimeout = Duration.ofSeconds(5))
        fixture.setLatency(latency)
        // When a lease is acquired
        val lease = a.lock(lockName, options(leaseTime = leaseTime, autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        val remaining = lease.remaining()
        // Then its validity counts from when the acquire was sent: the reply came at least the latency later
        withClue("remaining() right after an acquire that took at least $latency (lease $leaseTime)") {
            remaining shouldBeLessThanOrEqualTo leaseTime.minus(latency)
        }
        // And it still never exceeds Redis's own TTL
        val ttl = a.lock(lockName).inspect().present("inspect() of a held lock").remainingTtl()
        withClue("remaining() read after inspect() saw TTL $ttl") { lease.remaining() shouldBeLessThanOrEqualTo ttl }
        fixture.setLatency(Duration.ZERO)
        withClue("release()") { lease.release() shouldBe true }
    },
)
