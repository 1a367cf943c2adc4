package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LeaseLoss
import io.leasehold.lock.LockEventListener
import io.leasehold.lock.LockException
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

// Small assertion helpers shared by the scenarios, so that each scenario reads as Given/When/Then.

/** The value of this future, failing the scenario if it does not complete within [timeout]. */
internal fun <T> CompletableFuture<T>.value(what: String, timeout: Duration = Timing.AWAIT): T =
    try {
        get(timeout.toNanos(), TimeUnit.NANOSECONDS)
    } catch (e: TimeoutException) {
        throw AssertionError("timed out after $timeout waiting for $what")
    } catch (e: ExecutionException) {
        throw AssertionError("expected $what, but it failed with ${e.cause}", e.cause)
    }

/** How this future failed, failing the scenario if it succeeds or does not complete within [timeout]. */
internal fun CompletableFuture<*>.failure(what: String, timeout: Duration = Timing.AWAIT): Throwable {
    val value = try {
        get(timeout.toNanos(), TimeUnit.NANOSECONDS)
    } catch (e: TimeoutException) {
        throw AssertionError("timed out after $timeout waiting for $what to fail")
    } catch (e: ExecutionException) {
        return e.cause ?: e
    } catch (e: java.util.concurrent.CancellationException) {
        return e
    }
    throw AssertionError("expected $what to fail, but it completed with $value")
}

/** The cause a [CompletableFuture] stage wrapped, or [this] if it is not a wrapper. */
internal fun Throwable.unwrapped(): Throwable =
    if ((this is CompletionException || this is ExecutionException) && cause != null) cause!!.unwrapped() else this

/**
 * The exception of type [T] that [block] throws, or with which the future it returns fails: some
 * argument and state checks of async methods may legitimately happen either way.
 */
internal inline fun <reified T : Throwable> rejected(what: String, block: () -> Any?): T {
    val outcome = try {
        block()
    } catch (e: Throwable) {
        return withClue(what) { e.unwrapped().shouldBeInstanceOf<T>() }
    }
    if (outcome is CompletableFuture<*>) {
        return withClue(what) { outcome.failure(what).unwrapped().shouldBeInstanceOf<T>() }
    }
    throw AssertionError("expected $what to be rejected with ${T::class.simpleName}, but it returned $outcome")
}

/** Asserts that this exception's message names every one of [parts] (parameter, rule, value, lock). */
internal fun Throwable.shouldMention(vararg parts: String) {
    val message = message ?: throw AssertionError("expected a message naming ${parts.toList()}, but $this has none")
    parts.forEach { message shouldContain it }
}

/** Asserts that a [LockException] is about lock [name]. */
internal fun LockException.shouldBeAbout(name: String) {
    withClue("lockName() of $this") { lockName() shouldContain name }
}

/** Time since [startNanos] ([System.nanoTime]). */
internal fun elapsedSince(startNanos: Long): Duration = Duration.ofNanos(System.nanoTime() - startNanos)

/** A listener that records what the engine reports, for scenarios that check listener calls. */
internal class RecordingListener : LockEventListener {
    val losses: MutableList<LeaseLoss> = CopyOnWriteArrayList()
    val acquired: MutableList<Long> = CopyOnWriteArrayList()
    val released: MutableList<Long> = CopyOnWriteArrayList()
    val cancelled: MutableList<String> = CopyOnWriteArrayList()
    val waitsStarted: MutableList<String> = CopyOnWriteArrayList()
    val waitsEnded: MutableList<String> = CopyOnWriteArrayList()
    val handoffs: MutableList<Long> = CopyOnWriteArrayList()
    val uncertain: MutableList<Long> = CopyOnWriteArrayList()
    val reconfirmed: MutableList<Long> = CopyOnWriteArrayList()

    /** Every event's kind in the order heard: "acquired", "uncertain", "lost", ... */
    val sequence: MutableList<String> = CopyOnWriteArrayList()

    override fun onAcquireCancelled(lockName: String, waited: Duration) {
        cancelled += lockName
        sequence += "cancelled"
    }

    override fun onWaitStarted(lockName: String) {
        waitsStarted += lockName
        sequence += "waitStarted"
    }

    override fun onWaitEnded(lockName: String, waited: Duration) {
        waitsEnded += lockName
        sequence += "waitEnded"
    }

    override fun onHandoff(lockName: String, fencingToken: Long, sinceReleaseSeen: Duration) {
        handoffs += fencingToken
        sequence += "handoff"
    }

    override fun onLeaseUncertain(lockName: String, fencingToken: Long, validFor: Duration, cause: Throwable) {
        uncertain += fencingToken
        sequence += "uncertain"
    }

    override fun onLeaseReconfirmed(lockName: String, fencingToken: Long) {
        reconfirmed += fencingToken
        sequence += "reconfirmed"
    }

    override fun onAcquired(lockName: String, fencingToken: Long, waited: Duration) {
        acquired += fencingToken
        sequence += "acquired"
    }

    override fun onReleased(lockName: String, fencingToken: Long, held: Duration) {
        released += fencingToken
        sequence += "released"
        endings += Ending(fencingToken, "released", null)
    }

    override fun onLeaseLost(loss: LeaseLoss) {
        losses += loss
        sequence += "lost"
        endings += Ending(loss.fencingToken(), "lost", loss)
    }

    override fun onReleaseUnconfirmed(
        lockName: String,
        fencingToken: Long,
        held: Duration,
        cause: io.leasehold.lock.ReleaseUnconfirmedException,
    ) {
        unconfirmed += fencingToken
        sequence += "releaseUnconfirmed"
        endings += Ending(fencingToken, "releaseUnconfirmed", null)
    }

    /** Leases whose release Redis could not confirm (their ending event). */
    val unconfirmed: MutableList<Long> = CopyOnWriteArrayList()

    /** Every ending event heard, in order: one per lease that was handed out. */
    val endings: MutableList<Ending> = CopyOnWriteArrayList()

    /** An ending event: "released", "releaseUnconfirmed" or "lost" (with the loss). */
    data class Ending(val token: Long, val kind: String, val loss: LeaseLoss?)
}

/** The value of this optional, failing the scenario with [what] if it is empty. */
internal fun <T : Any> java.util.Optional<T>.present(what: String): T =
    orElseThrow { AssertionError("expected $what, but got an empty Optional") }

/** Fails the scenario with [what] if this optional holds a value. */
internal fun java.util.Optional<*>.shouldBeAbsent(what: String) {
    if (isPresent) throw AssertionError("expected $what to be empty, but got ${get()}")
}
