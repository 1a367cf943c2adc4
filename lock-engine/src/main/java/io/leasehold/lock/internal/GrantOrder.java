package io.leasehold.lock.internal;

import io.leasehold.lock.spi.LockKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Who decides whose turn it is, the one thing in which {@code lock(name)} and {@code fairLock(name)}
 * differ.
 *
 * <p>Both send acquire.lua and release.lua, which keep the lock's wait queue in Redis (see their
 * headers): a waiter whose attempt finds the lock held takes a place in it, in the order its
 * enqueue reached Redis; a release grants the lock straight to the queue's head (for a grant window
 * of {@link #WAITER_LEASE_MS} ms) and names it in its message, which wakes that waiter alone.
 *
 * <ul>
 *   <li>{@link #CLIENT_QUEUE} ({@code lock}): each client also orders its own waiters: only the
 *       local queue's head asks Redis (and so takes a place), and a release hands the lock to the
 *       next local waiter in the same call (handoff.lua), passing Redis's queue by for one pass
 *       over the client's waiters, at most {@link WaitQueues#HANDOFFS_BEFORE_YIELD} handoffs in a
 *       row; then Redis's head gets it. A
 *       waiter asks again when the holder's TTL runs out, as before it had a place (no polling,
 *       G7): its place lasts that TTL and a waiter lease more.</li>
 *   <li>{@link #REDIS_QUEUE} ({@code fairLock}): strict FIFO across all clients: every waiter asks
 *       for itself and takes its place, which the watchdog keeps alive every {@link #WAITER_RENEW_MS}
 *       ms in its batched renew calls (see {@link WaiterPlace}; the waiter lease is
 *       {@link #WAITER_LEASE_MS} ms, so that a dead waiter leaves the queue within it), and no lease
 *       hands the lock over locally.</li>
 * </ul>
 */
enum GrantOrder {
    CLIENT_QUEUE,
    REDIS_QUEUE;

    /**
     * A waiter's place in the queue lapses this long after its last call (its client died or
     * stalls), and a grant its waiter does not take within it goes on to the next waiter: so a dead
     * waiter delays the queue by at most this plus {@link #WAITER_RENEW_MS} (the next live waiter's
     * call that finds the lock free), never by a lease.
     */
    static final long WAITER_LEASE_MS = 1_500;
    /** How often a waiter renews its place (and so the bound on a missed grant message). */
    static final long WAITER_RENEW_MS = WAITER_LEASE_MS / 3;

    private static final String GRANTED_PREFIX = "granted ";
    /** The message of a release that granted the lock to nobody (release.lua's). */
    static final String RELEASED_MESSAGE = "released";
    /** {@link #grantedToken} of a grant message without a (well-formed) token. */
    static final long NO_TOKEN = -1;

    /** Whether this client's waiters of a name queue behind one another locally (one asks, handoffs). */
    boolean ordersLocally() {
        return this == CLIENT_QUEUE;
    }

    /**
     * Sends the attempt of {@code round} (acquire.lua), with the command timeout; a fair one's is at
     * most {@link #WAITER_RENEW_MS}, so that a lost reply does not hold up the renewal of its place,
     * unless it is {@code patient}: an earlier attempt of the wait went unanswered that long, or the
     * wait ends sooner (then only the reply can tell whether the lock was free). A client
     * whose round trip is longer (a slow link) would otherwise never hear back, while each retry
     * (the same owner) reset the TTL of the lock granted to it: the lock held for nobody for the
     * whole wait. {@code onlyTry} for an acquisition that will not wait, which takes no place in
     * Redis's queue (so it waits the command timeout too). A fair attempt cut short fails with
     * {@link PlaceTimeoutException}, after which the wait asks again, patiently.
     */
    CompletableFuture<Object> attempt(
            Engine engine,
            String name,
            AcquireRound round,
            boolean onlyTry,
            boolean patient,
            BiConsumer<Object, Throwable> lateReply,
            Runnable writing) {
        return engine.publishingCall(
                EngineScripts.ACQUIRE,
                queueKeys(engine, name),
                publish -> {
                    List<String> args = new ArrayList<>(round.args.size() + 3);
                    args.addAll(round.args);
                    args.add(Long.toString(WAITER_LEASE_MS));
                    args.add(publish);
                    args.add(placeMode(engine, onlyTry));
                    if (this == REDIS_QUEUE && engine.backend.grantsAreComposed()) {
                        args.add(round.waiter); // a quorum keeps the waiter's place under it
                    }
                    return args;
                },
                lateReply,
                writing,
                this == REDIS_QUEUE && !patient && !onlyTry);
    }

    /**
     * acquire.lua's place mode for an attempt: none for one that will not wait, nor for a plain waiter
     * where grants are composed of several servers' (each server's queue would order the waiters by
     * when their calls reached that server, and a server's grant to one of them is no grant: see
     * {@link io.leasehold.lock.spi.LockBackend#grantsAreComposed}); else a fair waiter's place (where
     * grants are composed, the backend orders the places by tickets of its own, and the attempt names
     * its waiter as a 7th argument), or a plain waiter's for the holder's TTL.
     */
    private String placeMode(Engine engine, boolean onlyTry) {
        if (onlyTry || (this == CLIENT_QUEUE && engine.backend.grantsAreComposed())) {
            return "1";
        }
        return this == REDIS_QUEUE ? "0" : "2";
    }

    /**
     * Parses an attempt's reply. A contended reply of acquire.lua tells the waiter's place as its
     * 4th entry, which is not handoff.lua's 4th entry: it is dropped here.
     */
    AcquireReply parse(@Nullable Object reply) {
        AcquireReply parsed = AcquireReply.parse(reply);
        return parsed.handoff() == null
                ? parsed
                : new AcquireReply(parsed.status(), parsed.token(), parsed.holderTtlMs(), null);
    }

    /** Whether {@code message} is a grant's ({@code "granted <owner> <token>"}, see release.lua). */
    static boolean isGrant(String message) {
        return message.startsWith(GRANTED_PREFIX);
    }

    /** Whether the grant message {@code message} names {@code owner}. */
    static boolean names(String message, String owner) {
        int end = GRANTED_PREFIX.length() + owner.length();
        return message.regionMatches(GRANTED_PREFIX.length(), owner, 0, owner.length())
                && (message.length() == end || message.charAt(end) == ' ');
    }

    /**
     * The fencing token of the grant message {@code message}, which {@link #names} a waiter, or
     * {@link #NO_TOKEN} if it carries none or one that is not a positive decimal (the waiter then asks
     * for its grant, as it did before messages carried tokens).
     */
    static long grantedToken(String message) {
        int space = message.indexOf(' ', GRANTED_PREFIX.length());
        if (space < 0 || space == message.length() - 1) {
            return NO_TOKEN;
        }
        try {
            long token = Long.parseLong(message.substring(space + 1));
            return token > 0 ? token : NO_TOKEN;
        } catch (NumberFormatException malformed) {
            return NO_TOKEN;
        }
    }

    /**
     * The owner-checked release of {@code owner}'s lock and of its place in Redis's queue, if any
     * (release.lua), with the command timeout; {@code handedTo} is the owner an earlier handoff of
     * this release may have granted the lock to, and {@code resendWindowMs} how long a resend of it
     * may still come (the release marker lasts that long).
     */
    static CompletableFuture<Object> release(
            Engine engine, String name, String owner, @Nullable String handedTo, long resendWindowMs) {
        return engine.timedCall(
                EngineScripts.RELEASE.name(),
                () -> engine.publishCommand().thenCompose(publish -> {
                    List<String> args = new ArrayList<>(6);
                    args.add(owner);
                    args.add(Long.toString(Engine.FENCE_COUNTER_TTL_MS));
                    args.add(Long.toString(WAITER_LEASE_MS));
                    args.add(publish);
                    args.add(Long.toString(Math.max(resendWindowMs, 1)));
                    if (handedTo != null) {
                        args.add(handedTo);
                    }
                    return engine.backend.eval(EngineScripts.RELEASE, releaseKeys(engine, name), args);
                }),
                null);
    }

    /** acquire.lua's KEYS: the lock, its fencing counter, its wait queue, its waiter leases, its channel. */
    private static List<String> queueKeys(Engine engine, String name) {
        return List.of(
                engine.lockKey(name),
                engine.fenceKey(name),
                LockKeys.queueKey(engine.keyPrefix, name),
                LockKeys.waitersKey(engine.keyPrefix, name),
                engine.channel(name));
    }

    /** release.lua's and handoff.lua's KEYS: acquire.lua's, and the release marker. */
    static List<String> releaseKeys(Engine engine, String name) {
        List<String> keys = new ArrayList<>(queueKeys(engine, name));
        keys.add(LockKeys.yieldMarkerKey(engine.keyPrefix, name));
        return keys;
    }
}
