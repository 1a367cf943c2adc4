package io.leasehold.lock.internal;

import io.leasehold.lock.spi.LockKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Who decides whose turn it is, the one thing in which {@code lock(name)} and {@code fairLock(name)}
 * differ: which scripts an acquisition and a release send, how a contended waiter waits, and which
 * release messages concern it.
 *
 * <ul>
 *   <li>{@link #CLIENT_QUEUE} ({@code lock}): acquire.lua and release.lua; each client orders its
 *       own waiters (the local queue's head alone asks Redis, a release hands the lock to it in the
 *       same call, handoff.lua), and across clients the first to ask after a release gets it.</li>
 *   <li>{@link #REDIS_QUEUE} ({@code fairLock}): queue-acquire.lua and queue-release.lua; every
 *       waiter of every client takes its place in the lock's wait queue in Redis, in the order its
 *       enqueue reached Redis, and a release grants the lock straight to the head (see the scripts'
 *       headers). Each waiter asks for itself (no local head, no local handoff), keeps its place
 *       alive by asking again every {@link #WAITER_RENEW_MS} ms (its waiter lease is
 *       {@link #WAITER_LEASE_MS} ms), and is woken by a release message that names it.</li>
 * </ul>
 */
enum GrantOrder {
    CLIENT_QUEUE,
    REDIS_QUEUE;

    /**
     * A fair waiter's place in the queue lapses this long after its last call (its client died or
     * stalls), and a grant its waiter does not take within it goes on to the next waiter: so a dead
     * waiter delays the queue by at most this plus {@link #WAITER_RENEW_MS} (the next live waiter's
     * call that finds the lock free), never by a lease.
     */
    static final long WAITER_LEASE_MS = 1_500;
    /** How often a fair waiter renews its place (and so the bound on a missed grant message). */
    static final long WAITER_RENEW_MS = WAITER_LEASE_MS / 3;

    private static final String GRANTED_PREFIX = "granted ";

    /** Whether this client's waiters of a name queue behind one another locally (one asks, handoffs). */
    boolean ordersLocally() {
        return this == CLIENT_QUEUE;
    }

    /**
     * Sends the attempt of {@code round}, with the command timeout; {@code onlyTry} for an
     * acquisition that will not wait (a fair one then takes no place in Redis's queue).
     */
    CompletableFuture<Object> attempt(
            Engine engine,
            String name,
            AcquireRound round,
            boolean onlyTry,
            BiConsumer<Object, Throwable> lateReply,
            Runnable writing) {
        if (this == CLIENT_QUEUE) {
            return engine.call(
                    EngineScripts.ACQUIRE,
                    List.of(engine.lockKey(name), engine.fenceKey(name)),
                    round.args,
                    lateReply,
                    writing);
        }
        return engine.publishCommand().thenCompose(publish -> {
            List<String> args = new ArrayList<>(round.args);
            args.add(Long.toString(WAITER_LEASE_MS));
            args.add(publish);
            args.add(onlyTry ? "1" : "0");
            return engine.placeCall(EngineScripts.QUEUE_ACQUIRE, queueKeys(engine, name), args, lateReply, writing);
        });
    }

    /**
     * Parses an attempt's reply. A waiting reply of queue-acquire.lua tells the waiter's place as its
     * 4th entry, which is not handoff.lua's 4th entry: it is dropped here.
     */
    AcquireReply parse(@Nullable Object reply) {
        AcquireReply parsed = AcquireReply.parse(reply);
        return this == CLIENT_QUEUE || parsed.handoff() == null
                ? parsed
                : new AcquireReply(parsed.status(), parsed.token(), parsed.holderTtlMs(), null);
    }

    /** When a contended waiter asks again if nothing wakes it first: the holder's TTL, or its place's renewal. */
    long fallbackMs(long holderTtlMs) {
        return this == CLIENT_QUEUE ? holderTtlMs : Math.min(holderTtlMs, WAITER_RENEW_MS);
    }

    /**
     * Whether the release message {@code message} (null for a missed one: a resubscription) should
     * make the waiter whose current owner is {@code owner} ask: a fair waiter passes over grants to
     * others (the queue grants in order, so asking would only renew its place).
     */
    boolean wakes(@Nullable String message, String owner) {
        if (this == CLIENT_QUEUE || message == null || !message.startsWith(GRANTED_PREFIX)) {
            return true;
        }
        return message.regionMatches(GRANTED_PREFIX.length(), owner, 0, owner.length())
                && message.length() == GRANTED_PREFIX.length() + owner.length();
    }

    /**
     * The owner-checked release of {@code owner}'s lock (and, in a Redis queue, of its place), with
     * the command timeout; {@code resendWindowMs} is how long a resend of it may still come (the
     * Redis queue's release marker lasts that long).
     */
    CompletableFuture<Object> release(
            Engine engine, String name, String owner, @Nullable String handedTo, long resendWindowMs) {
        if (this == CLIENT_QUEUE) {
            return engine.timedCall(
                    EngineScripts.RELEASE.name(),
                    () -> engine.publishCommand()
                            .thenCompose(publish -> engine.backend.eval(
                                    EngineScripts.RELEASE,
                                    List.of(engine.lockKey(name), engine.channel(name)),
                                    handedTo == null ? List.of(owner, publish) : List.of(owner, publish, handedTo))),
                    null);
        }
        List<String> keys = new ArrayList<>(queueKeys(engine, name));
        keys.add(LockKeys.yieldMarkerKey(engine.keyPrefix, name));
        return engine.timedCall(
                EngineScripts.QUEUE_RELEASE.name(),
                () -> engine.publishCommand()
                        .thenCompose(publish -> engine.backend.eval(
                                EngineScripts.QUEUE_RELEASE,
                                keys,
                                List.of(
                                        owner,
                                        Long.toString(Engine.FENCE_COUNTER_TTL_MS),
                                        Long.toString(WAITER_LEASE_MS),
                                        publish,
                                        Long.toString(Math.max(resendWindowMs, 1))))),
                null);
    }

    private static List<String> queueKeys(Engine engine, String name) {
        return List.of(
                engine.lockKey(name),
                engine.fenceKey(name),
                LockKeys.queueKey(engine.keyPrefix, name),
                LockKeys.waitersKey(engine.keyPrefix, name),
                engine.channel(name));
    }
}
