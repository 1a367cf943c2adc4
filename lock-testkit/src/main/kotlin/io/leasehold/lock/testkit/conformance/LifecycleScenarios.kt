package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.spi.LockKeys
import io.leasehold.lock.spi.LuaScript
import io.leasehold.lock.spi.ScriptNames
import java.time.Duration
import java.util.UUID
import java.util.concurrent.TimeUnit

// G12: close() is idempotent, bounded in time, releases held leases, and leaves no thread,
// subscription or renewal running.

private const val THREAD_PREFIX = "leasehold-"

private fun leaseholdThreads(): Set<Thread> =
    Thread.getAllStackTraces().keys.filter { it.isAlive && it.name.startsWith(THREAD_PREFIX) }.toSet()

/**
 * Exercises a bare backend of the fixture (a script call, a subscription, a published message) and
 * closes it, so that threads the fixture's shared store starts lazily, and keeps for its own
 * lifetime, already exist before the scenario counts threads. No engine is involved.
 */
private fun ScenarioContext.warmUpFixture() {
    val name = uniqueName("warm-up")
    fixture.newBackend().use { backend ->
        val channel = LockKeys.releaseChannel(ScenarioContext.KEY_PREFIX, name)
        val subscription = backend.subscribe(channel) { _, _ -> }.get(10, TimeUnit.SECONDS)
        val owner = UUID.randomUUID().toString().replace("-", "")
        val prefix = ScenarioContext.KEY_PREFIX
        val keys = listOf(
            lockKey(name),
            LockKeys.fenceKey(prefix, name),
            LockKeys.queueKey(prefix, name),
            LockKeys.waitersKey(prefix, name),
            channel,
        )
        val publish = if (backend.shardedPubSub().get(10, TimeUnit.SECONDS)) "SPUBLISH" else "PUBLISH"
        backend.eval(LuaScript.bundled(ScriptNames.ACQUIRE), keys, listOf(owner, "5000", "60000", "1500", publish, "1"))
            .get(10, TimeUnit.SECONDS)
        backend.eval(
            LuaScript.bundled(ScriptNames.RELEASE),
            keys + LockKeys.yieldMarkerKey(prefix, name),
            listOf(owner, "60000", "1500", publish, "5000"),
        ).get(10, TimeUnit.SECONDS)
        subscription.unsubscribe().get(10, TimeUnit.SECONDS)
    }
}

internal val lifecycleScenarios: List<Scenario> = listOf(

    scenario("shouldReleaseHeldLeasesOnClose", "G12") {
        // Given a node holding three locks
        val a = newClient()
        val b = newClient()
        val names = listOf(lockName, uniqueName("second"), uniqueName("third"))
        val leases = names.map { a.lock(it).acquire(Timing.ACQUIRE_WAIT) }
        // When it closes
        val start = System.nanoTime()
        a.close()
        val took = elapsedSince(start)
        // Then within its bound every lock is released, not left to expire
        withClue("close() took $took (close timeout ${io.leasehold.lock.LockClient.Builder.DEFAULT_CLOSE_TIMEOUT})") {
            took shouldBeLessThan io.leasehold.lock.LockClient.Builder.DEFAULT_CLOSE_TIMEOUT.plus(Timing.SLACK)
        }
        names.forEach { name -> b.lock(name).tryAcquire().present("tryAcquire() of '$name' right after the holder closed").use { } }
        leases.forEachIndexed { i, lease ->
            withClue("lease $i isValid() after close") { lease.isValid shouldBe false }
            withClue("lease $i lost() after close (ended under its holder: a loss)") {
                lease.lost().value("lost() of lease $i").reason() shouldBe io.leasehold.lock.LeaseLoss.Reason.CLIENT_CLOSED
            }
        }
    },

    scenario("shouldLeaveNoLeaseholdThreadsAfterClose", "G12") {
        warmUpFixture()
        val before = leaseholdThreads()
        // Given two nodes that hold, renew, wait and subscribe
        val a = newClient()
        val waiter = newNode()
        val held = a.lock(lockName, io.leasehold.lock.LockOptions.builder().leaseTime(Timing.SHORT_LEASE).build()).acquire(Timing.ACQUIRE_WAIT)
        val other = waiter.client.lock(uniqueName("other")).acquire(Timing.ACQUIRE_WAIT)
        val waiting = waiter.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        await("the waiter has subscribed") { waiter.counter.subscribeCount() >= 1 }
        hold(Timing.SHORT_LEASE) // a renewal round or two
        val during = leaseholdThreads() - before
        during.forEach { withClue("thread '${it.name}' started while locking") { it.isDaemon shouldBe true } }
        withClue("holder still valid") { held.isValid shouldBe true }
        // When both close
        closeClients()
        // Then every Leasehold thread they started ends
        await("no Leasehold thread started by the scenario is alive; alive: ${(leaseholdThreads() - before).map { it.name }}") {
            (leaseholdThreads() - before).isEmpty()
        }
        await("the waiter's future ends when its client closes") { waiting.isDone }
        withClue("lease isValid() after close") { other.isValid shouldBe false }
    },

    scenario("shouldCloseIdempotently", "G12") {
        // Given a node that holds a lock and waits for another
        val a = newClient()
        val b = newClient()
        val other = uniqueName("other")
        val heldByB = b.lock(other).acquire(Timing.ACQUIRE_WAIT)
        a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val waiting = a.lock(other).acquireAsync(Duration.ofSeconds(30))
        // When it is closed twice
        var start = System.nanoTime()
        a.close()
        val first = elapsedSince(start)
        start = System.nanoTime()
        a.close()
        val second = elapsedSince(start)
        // Then both return within the bound, the waiter's future ends, and the other node's lock is untouched
        val bound = io.leasehold.lock.LockClient.Builder.DEFAULT_CLOSE_TIMEOUT.plus(Timing.SLACK)
        withClue("first close() took $first") { first shouldBeLessThan bound }
        withClue("second close() took $second") { second shouldBeLessThan bound }
        withClue("isClosed()") { a.isClosed shouldBe true }
        waiting.failure("the pending acquireAsync of a closed client")
        withClue("the other node's lease") { heldByB.isValid shouldBe true }
        withClue("holder of the other lock") { b.lock(other).inspect().present("inspect()").fencingToken() shouldBe heldByB.fencingToken() }
        b.lock(lockName).tryAcquire().present("tryAcquire() of the closed node's lock").use { }
        withClue("release() by the other node") { heldByB.release() shouldBe true }
    },

    scenario("shouldBoundTheWholeCloseIncludingTheBackend", "G12") {
        // Given a node whose backend takes 10 s to close, and a close timeout of 1 s
        val closeTimeout = Duration.ofSeconds(1)
        val slowClose = java.util.concurrent.CountDownLatch(1)
        val node = newNode(
            wrap = { backend -> SlowClosingBackend(backend, slowClose) },
            configure = { closeTimeout(closeTimeout) },
        )
        node.client.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        try {
            // When it closes
            val start = System.nanoTime()
            node.client.close()
            val took = elapsedSince(start)
            // Then close() returns within its timeout (plus slack for this machine), backend included
            withClue("close() took $took with a close timeout of $closeTimeout and a backend that needs 10 s") {
                took shouldBeLessThan closeTimeout.plus(Duration.ofSeconds(2))
            }
        } finally {
            slowClose.countDown()
        }
    },
)

/** A backend whose close() blocks until [released] (at most 10 s), as a driver waiting for its sockets may. */
private class SlowClosingBackend(delegate: io.leasehold.lock.spi.LockBackend, private val released: java.util.concurrent.CountDownLatch) :
    io.leasehold.lock.testkit.ForwardingLockBackend(delegate) {
    override fun close() {
        released.await(10, TimeUnit.SECONDS)
        super.close()
    }
}
