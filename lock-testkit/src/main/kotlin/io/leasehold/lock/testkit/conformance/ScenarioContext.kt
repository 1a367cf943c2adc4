package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LockClient
import io.leasehold.lock.LockOptions
import io.leasehold.lock.spi.LockBackend
import io.leasehold.lock.spi.LockKeys
import io.leasehold.lock.testkit.CountingLockBackend
import io.leasehold.lock.testkit.LockBackendFixture
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.ThreadLocalRandom
import java.util.concurrent.TimeUnit

/**
 * What one scenario runs with: the fixture, a lock name nobody else uses (so that scenarios never
 * interfere, also on a shared real Redis), and factories for clients and threads that are all
 * cleaned up by [close], whatever the scenario did.
 *
 * Every client gets its own [LockBackendFixture.newBackend], so two clients behave like two
 * application nodes.
 *
 * This class is threadsafe.
 */
public class ScenarioContext internal constructor(
    public val fixture: LockBackendFixture,
    public val scenarioName: String,
) : AutoCloseable {

    private val clients = CopyOnWriteArrayList<LockClient>()
    private val threads = CopyOnWriteArrayList<Thread>()

    /** The scenario's main lock name, unique to this run. */
    public val lockName: String = uniqueName()

    /** Another lock name unique to this run; [tag] makes failure messages readable. */
    public fun uniqueName(tag: String = ""): String {
        val suffix = java.lang.Long.toHexString(ThreadLocalRandom.current().nextLong())
        return "conformance:$scenarioName" + (if (tag.isEmpty()) "" else ":$tag") + ":$suffix"
    }

    /** The Redis key of lock [name] under the default key prefix, for the fixture's fault switches. */
    public fun lockKey(name: String = lockName): String = LockKeys.lockKey(KEY_PREFIX, name)

    /** A client on a new backend, closed after the scenario. */
    public fun newClient(
        commandTimeout: Duration = Timing.COMMAND_TIMEOUT,
        configure: LockClient.Builder.() -> Unit = {},
    ): LockClient = newNode(commandTimeout, configure = configure).client

    /**
     * A client whose backend counts the calls the engine makes; [wrap] may put a decorator of the
     * scenario's own between the counter and the fixture's backend.
     */
    public fun newNode(
        commandTimeout: Duration = Timing.COMMAND_TIMEOUT,
        wrap: (LockBackend) -> LockBackend = { it },
        configure: LockClient.Builder.() -> Unit = {},
    ): Node {
        val counter = CountingLockBackend(wrap(fixture.newBackend()))
        val client = try {
            LockClient.builder(counter).commandTimeout(commandTimeout).apply(configure).build()
        } catch (e: Throwable) {
            counter.close()
            throw e
        }
        clients += client
        return Node(client, counter)
    }

    /** Lock options; defaults: a lease that outlives the test, auto-renew on, no max hold. */
    public fun options(
        leaseTime: Duration = Timing.LONG_LEASE,
        autoRenew: Boolean = true,
        maxHoldTime: Duration? = null,
    ): LockOptions = LockOptions.builder().leaseTime(leaseTime).autoRenew(autoRenew)
        .apply { if (maxHoldTime != null) maxHoldTime(maxHoldTime) }
        .build()

    /** Runs [body] on a new daemon thread (interrupted and joined by [close] if still running). */
    public fun <T> startThread(label: String, body: () -> T): Background<T> {
        val result = CompletableFuture<T>()
        val thread = Thread({
            try {
                result.complete(body())
            } catch (e: Throwable) {
                result.completeExceptionally(e)
            }
        }, "conformance-$label")
        thread.isDaemon = true
        threads += thread
        thread.start()
        return Background(thread, result)
    }

    /**
     * Polls [condition] until it holds, failing the scenario after [timeout]: for eventual
     * conditions, instead of sleeping and hoping.
     */
    public fun await(what: String, timeout: Duration = Timing.AWAIT, condition: () -> Boolean) {
        val deadline = System.nanoTime() + timeout.toNanos()
        while (!condition()) {
            if (System.nanoTime() - deadline > 0) {
                throw AssertionError("timed out after $timeout waiting until $what")
            }
            Thread.sleep(POLL_MILLIS)
        }
    }

    /**
     * Keeps the calling thread busy for [duration]: used where elapsed time is the point of the
     * scenario (hold a lock across several lease times), never to wait for something to happen.
     */
    public fun hold(duration: Duration) {
        Thread.sleep(duration.toMillis())
    }

    /** Closes every client made here, which closes their backends. */
    public fun closeClients() {
        clients.reversed().forEach { runCatching { it.close() } }
    }

    override fun close() {
        threads.forEach { if (it.isAlive) it.interrupt() }
        closeClients()
        threads.forEach { it.join(TimeUnit.SECONDS.toMillis(5)) }
    }

    /** A client and the counter in front of its backend. */
    public class Node internal constructor(public val client: LockClient, public val counter: CountingLockBackend)

    /** A thread started by [startThread] and its result. */
    public class Background<T> internal constructor(public val thread: Thread, public val result: CompletableFuture<T>)

    internal companion object {
        const val KEY_PREFIX: String = LockClient.Builder.DEFAULT_KEY_PREFIX
        const val POLL_MILLIS: Long = 10
    }
}
