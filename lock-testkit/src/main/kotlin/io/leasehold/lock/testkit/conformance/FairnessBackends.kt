package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.DistributedLock
import io.leasehold.lock.Lease
import io.leasehold.lock.LockClient
import io.leasehold.lock.LockOptions
import io.leasehold.lock.LockTimeoutException
import io.leasehold.lock.spi.LockBackend
import io.leasehold.lock.spi.LockKeys
import io.leasehold.lock.spi.LuaScript
import io.leasehold.lock.spi.MessageListener
import io.leasehold.lock.spi.ScriptNames
import io.leasehold.lock.spi.Subscription
import io.leasehold.lock.testkit.FaultInjectingBackend
import io.leasehold.lock.testkit.ForwardingLockBackend
import io.leasehold.lock.withLock
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.seconds

// The backends through which the fairness scenarios make a node die, reset, or lose replies.

/**
 * A backend whose process is dead (or frozen) as far as Redis can tell between [die] and [revive]:
 * no command reaches Redis (each hangs until the engine's command timeout), so the client neither
 * renews nor cleans up. A dead process hears nothing either; with [hearsMessages], its subscription
 * still delivers (a client whose commands are cut off while its subscription's connection holds), so
 * a grant's message may hand it the lock, which it cannot renew.
 */
internal class DyingBackend(delegate: LockBackend, private val hearsMessages: Boolean) : ForwardingLockBackend(delegate) {
    private val dead = AtomicBoolean()

    /** Commands sent and not yet answered: counted before [dead] is read, so that [quiet] misses none. */
    private val onTheirWay = AtomicInteger()

    fun die() = dead.set(true)

    /**
     * Whether every command sent before [die] has been answered. A waiter's ask still on its way at
     * [die] lands afterwards, and one that lands after the holder's release takes the grant with a
     * whole lease (a process that dies right after asking holds the lock for its lease, as with any
     * lease lock): the scenario's dead waiter is one with nothing on its way.
     */
    fun quiet(): Boolean = onTheirWay.get() == 0

    /** Lets commands through again, so that the client's close can clean up instead of waiting out its bound. */
    fun revive() = dead.set(false)

    override fun eval(script: LuaScript, keys: List<String>, args: List<String>): CompletableFuture<Any> {
        onTheirWay.incrementAndGet()
        if (dead.get()) {
            onTheirWay.decrementAndGet()
            return CompletableFuture()
        }
        return delegate().eval(script, keys, args).whenComplete { _, _ -> onTheirWay.decrementAndGet() }
    }

    override fun subscribe(channel: String, listener: MessageListener): CompletableFuture<Subscription> =
        delegate().subscribe(
            channel,
            object : MessageListener {
                override fun onMessage(channel: String, message: String) {
                    if (hearsMessages || !dead.get()) listener.onMessage(channel, message)
                }

                override fun onResubscribed(channel: String) {
                    if (hearsMessages || !dead.get()) listener.onResubscribed(channel)
                }
            },
        )
}

/**
 * A backend whose next release's reply (release.lua), once [resetNextRelease] is called, is
 * lost to a connection reset [after] the command ran in Redis: the failure is transient, its outcome
 * unknown, and it comes well before the command timeout, so the engine sends the release again.
 * (Only a release: a renewal that happened to fall due must not take the fault instead.)
 */
internal class ResettingBackend(delegate: LockBackend, private val after: Duration = Duration.ZERO) :
    ForwardingLockBackend(delegate) {
    private val armed = AtomicBoolean()

    fun resetNextRelease() = armed.set(true)

    override fun eval(script: LuaScript, keys: List<String>, args: List<String>): CompletableFuture<Any> {
        val reply = delegate().eval(script, keys, args)
        if (script.name() != ScriptNames.RELEASE || !armed.compareAndSet(true, false)) return reply
        val reset = java.io.IOException("Connection reset by peer (injected after ${script.name()} ran)")
        val failed = CompletableFuture<Any>()
        reply.whenComplete { _, _ ->
            CompletableFuture.delayedExecutor(after.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                .execute { failed.completeExceptionally(reset) }
        }
        return failed
    }
}

/**
 * A backend that counts the replies it has passed on, per script (the counter in front of a node
 * counts calls sent): a waiter is known to have its place in Redis's queue once its first
 * acquire has been answered.
 */
internal class ReplyCountingBackend(delegate: LockBackend) : ForwardingLockBackend(delegate) {
    private val replies = java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong>()

    fun replies(script: String): Long = replies[script]?.get() ?: 0L

    override fun eval(script: LuaScript, keys: List<String>, args: List<String>): CompletableFuture<Any> =
        delegate().eval(script, keys, args).whenComplete { _, error ->
            if (error == null) replies.computeIfAbsent(script.name()) { java.util.concurrent.atomic.AtomicLong() }.incrementAndGet()
        }
}

/**
 * A backend that loses the reply of its first acquire call that took the lock (a waiter's
 * confirm of its grant): the command ran in Redis, its answer never arrives.
 */
internal class GrantReplyLosingBackend(delegate: LockBackend) : ForwardingLockBackend(delegate) {
    private val lost = java.util.concurrent.atomic.AtomicLong()

    fun lost(): Long = lost.get()

    override fun eval(script: LuaScript, keys: List<String>, args: List<String>): CompletableFuture<Any> {
        val reply = delegate().eval(script, keys, args)
        if (script.name() != ScriptNames.ACQUIRE) return reply
        val seen = CompletableFuture<Any>()
        reply.whenComplete { value, error ->
            val granted = error == null && (value as? List<*>)?.firstOrNull() == 1L
            if (granted && lost.compareAndSet(0, 1)) return@whenComplete // dropped: never completes
            if (error == null) seen.complete(value) else seen.completeExceptionally(error)
        }
        return seen
    }
}
