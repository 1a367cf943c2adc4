package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.DistributedLock
import io.leasehold.lock.Lease
import io.leasehold.lock.LockClient
import io.leasehold.lock.awaitAcquire
import io.leasehold.lock.awaitTryAcquire
import io.leasehold.lock.withLock
import java.time.Duration
import java.util.Optional
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.ThreadLocalRandom
import java.util.concurrent.TimeUnit
import java.util.concurrent.locks.LockSupport
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout

// G8 attacked: a cancel may land at any moment of an acquisition — before the request is sent,
// while it is in flight, after Redis ran it but before the reply was handled, after the caller's
// future completed — and of every entry point, Java and Kotlin. Whatever the moment, nothing may stay
// locked that the caller did not receive, and no lease nobody holds may be renewed.

/** Iterations per entry point: enough to land cancels all around the reply on a loopback Redis. */
private const val RACES = 150

/** How long a cancel waits after the call before it fires: 0 to ~2 round trips of a loopback Redis. */
private fun randomPauseNanos(): Long = ThreadLocalRandom.current().nextLong(0, 400_000)

private fun pause() {
    val nanos = randomPauseNanos()
    if (nanos > 100_000) LockSupport.parkNanos(nanos) else {
        val until = System.nanoTime() + nanos
        while (System.nanoTime() < until) Thread.onSpinWait()
    }
}

/** One way of starting an acquisition that its caller may cancel. */
private class EntryPoint(val name: String, val start: (DistributedLock, MutableList<Lease>) -> Race)

/** A started acquisition: how to cancel it, and a future that completes once the caller's side is over. */
private class Race(val cancel: () -> Unit, val settled: CompletableFuture<*>)

/**
 * The caller's future is what gets cancelled; [receive] records what it delivers, and the race is
 * settled only once that was recorded.
 */
private fun <T> futureRace(future: CompletableFuture<T>, receive: (T) -> Unit = {}): Race {
    val recorded = future.whenComplete { value, _ -> if (value != null) receive(value) }
    return Race({ future.cancel(true) }, recorded.handle { _, _ -> null })
}

private val javaEntryPoints: List<EntryPoint> = listOf(
    EntryPoint("acquireAsync") { lock, received ->
        futureRace(lock.acquireAsync(Duration.ofSeconds(2))) { received += it }
    },
    EntryPoint("tryAcquireAsync") { lock, received ->
        futureRace(lock.tryAcquireAsync(Duration.ofSeconds(2))) { maybe: Optional<Lease> -> maybe.ifPresent { received += it } }
    },
    EntryPoint("callLockedAsync") { lock, _ ->
        futureRace(lock.callLockedAsync(Duration.ofSeconds(2)) { _ ->
            CompletableFuture<String>().completeOnTimeout("done", ThreadLocalRandom.current().nextLong(0, 2), TimeUnit.MILLISECONDS)
        })
    },
)

private val kotlinEntryPoints: List<EntryPoint> = listOf(
    EntryPoint("awaitAcquire") { lock, received -> coroutineRace { received += lock.awaitAcquire(2.seconds) } },
    EntryPoint("awaitTryAcquire") { lock, received -> coroutineRace { lock.awaitTryAcquire(2.seconds)?.let { received += it } } },
    EntryPoint("withLock") { lock, _ -> coroutineRace { lock.withLock(2.seconds) { delay(ThreadLocalRandom.current().nextLong(0, 2)) } } },
)

/** Process-wide: the races' coroutines are all joined before a scenario ends. */
private val raceScope = CoroutineScope(SupervisorJob() + Dispatchers.Default)

private fun coroutineRace(body: suspend () -> Unit): Race {
    val job: Job = raceScope.launch { body() }
    val settled = CompletableFuture<Unit>()
    job.invokeOnCompletion { settled.complete(Unit) }
    return Race({ job.cancel() }, settled)
}

/**
 * Races [RACES] acquisitions of fresh lock names through [entry] against a cancel at a random
 * moment, releases whatever the caller did receive, and returns the names used.
 */
private fun ScenarioContext.raceCancels(client: LockClient, entry: EntryPoint): List<String> {
    val names = List(RACES) { uniqueName("${entry.name}-$it") }
    val received = CopyOnWriteArrayList<Lease>()
    val races = names.map { name ->
        val race = entry.start(client.lock(name), received)
        pause()
        race.cancel()
        race
    }
    races.forEachIndexed { i, race -> race.settled.value("${entry.name} race $i settles") }
    // The caller's own leases are the caller's to release; everything else was the engine's.
    received.forEach { it.release() }
    return names
}

/** Asserts that none of [names] is held and that [node] renews nothing. */
private fun ScenarioContext.shouldHoldNothing(node: ScenarioContext.Node, names: List<String>, what: String) {
    val probe = newClient()
    await("every lock is free after $what", Duration.ofSeconds(10)) {
        names.none { probe.lock(it).isLocked }
    }
    withClue("locks still held after $what") { names.filter { probe.lock(it).isLocked } shouldBe emptyList() }
    // With a 900 ms lease the watchdog renews every 300 ms: an orphan it kept would show up here.
    node.counter.reset()
    hold(RENEW_WATCH)
    withClue("renew calls while the node should hold nothing, after $what; all calls: ${node.counter.counts()}") {
        node.counter.count(io.leasehold.lock.spi.ScriptNames.RENEW) shouldBe 0L
    }
}

/** A lease renewed every 300 ms, so that a lease the watchdog wrongly keeps shows up within a second. */
private val RACE_LEASE: Duration = Duration.ofMillis(900)
private val RENEW_WATCH: Duration = Duration.ofMillis(1000)

internal val cancellationRaceScenarios: List<Scenario> = listOf(

    scenario("shouldLeaveNothingHeldWhenJavaAsyncCallsAreCancelledAtRandomMoments", "G8") {
        val node = newNode(configure = { defaultOptions(options(leaseTime = RACE_LEASE)) })
        // When every async Java entry point is cancelled at random moments around its reply
        val names = javaEntryPoints.flatMap { raceCancels(node.client, it) }
        // Then no lock is left held and no lease is being renewed
        shouldHoldNothing(node, names, "${names.size} cancelled Java acquisitions")
    },

    scenario("shouldLeaveNothingHeldWhenSuspendCallsAreCancelledAtRandomMoments", "G8") {
        val node = newNode(configure = { defaultOptions(options(leaseTime = RACE_LEASE)) })
        // When every suspend entry point is cancelled at random moments around its reply
        val names = kotlinEntryPoints.flatMap { raceCancels(node.client, it) }
        // Then no lock is left held and no lease is being renewed
        shouldHoldNothing(node, names, "${names.size} cancelled suspend acquisitions")
    },

    scenario("shouldCancelTheBodyAndReleaseWhenCallLockedAsyncIsCancelledWhileTheBodyRuns", "G8") {
        val node = newNode()
        val b = newClient()
        // Given a callLockedAsync whose body's stage is still running
        val body = CompletableFuture<String>()
        val started = CompletableFuture<Long>()
        val outcome = node.client.lock(lockName).callLockedAsync(Timing.ACQUIRE_WAIT) { lease ->
            started.complete(lease.fencingToken())
            body
        }
        val token = started.value("the body starts")
        // When the caller cancels the result
        withClue("cancel() of a running callLockedAsync") { outcome.cancel(true) shouldBe true }
        // Then the body's stage is cancelled, and the lock is released, not left to its lease
        await("the body's stage is cancelled") { body.isCancelled }
        await("the lock is released after the cancel") { !b.lock(lockName).isLocked }
        withClue("holder token was $token; a new holder must get a greater one") {
            (b.lock(lockName).tryAcquire().present("tryAcquire() after the cancel").use { it.fencingToken() } > token) shouldBe true
        }
    },

    scenario("shouldReleaseALeaseWhoseCallerCancelledTheCoroutineAfterItWasGranted", "G8") {
        val node = newNode()
        val b = newClient()
        // Given coroutines racing awaitAcquire against their own cancellation, with no wait involved
        runBlocking(Dispatchers.Default) {
            withTimeout(60.seconds) {
                repeat(50) { i ->
                    val name = uniqueName("granted-$i")
                    val job = launch { node.client.lock(name).awaitAcquire(2.seconds).also { it.release() } }
                    job.cancel()
                    job.join()
                    // Then the lock is free: the lease was released by the engine or by the block
                    await("lock $name is free after a cancelled awaitAcquire") { !b.lock(name).isLocked }
                }
            }
        }
    },
)

