package io.leasehold.lock.internal;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The reply of acquire.lua, {@code {status, token, holderTtlMs}}, or of handoff.lua, the same with a
 * 4th entry {@code handoff}, parsed once (by the waiter, whose attempt either is; and by the releasing
 * lease, which reads the 4th entry of a handoff's).
 *
 * <ul>
 *   <li>{@code status} 1: the lock was granted, {@code token} is the lease's fencing token;</li>
 *   <li>{@code status} 0: contended, {@code holderTtlMs} is the holder's TTL left (the waiter's
 *       fallback), and {@code token} the holder's token;</li>
 *   <li>{@code handoff}, only in handoff.lua's reply (a release that hands the lock to a local
 *       waiter in the same call): the release's outcome as release.lua answers it (1, 0, -1); with
 *       status 0, {@link #YIELDED} when the handoff yielded the lock to other clients' waiters, or
 *       {@link #RELEASED_BY_EARLIER_YIELD} when an earlier send of it did.</li>
 * </ul>
 *
 * @param status      1 granted, 0 contended
 * @param token       the granted lease's fencing token, or the holder's
 * @param holderTtlMs the holder's TTL left in milliseconds when contended
 * @param handoff     handoff.lua's 4th entry, or null in acquire.lua's reply
 */
record AcquireReply(
        long status, long token, long holderTtlMs, @Nullable Long handoff) {

    /** A handoff's 4th entry with status 0: it yielded to other clients' waiters (see handoff.lua). */
    static final long YIELDED = 1;

    /**
     * A handoff's 4th entry with status 0 when an earlier send of the same handoff yielded the lock
     * (its yield marker names the releasing owner), and another client took it since: released.
     */
    static final long RELEASED_BY_EARLIER_YIELD = 2;

    /**
     * Parses the reply of an attempt, acquire.lua's or (when the attempt was a handoff to the waiter)
     * handoff.lua's; throws a runtime exception naming the reply if it is malformed.
     */
    static AcquireReply parse(@Nullable Object reply) {
        return parse(reply, "acquire");
    }

    /** Parses handoff.lua's reply, which must have its 4th entry; throws a runtime exception naming the reply if malformed. */
    static AcquireReply parseHandoff(@Nullable Object reply) {
        AcquireReply parsed = parse(reply, "handoff");
        if (parsed.handoff == null) {
            throw Replies.unexpected(reply, "handoff (no 4th entry)");
        }
        return parsed;
    }

    private static AcquireReply parse(@Nullable Object reply, String script) {
        List<?> fields = Replies.asList(reply, script);
        if (fields.size() < 3) {
            throw Replies.unexpected(reply, script);
        }
        return new AcquireReply(
                Replies.asLong(fields.get(0), script),
                Replies.asLong(fields.get(1), script),
                Replies.asLong(fields.get(2), script),
                fields.size() > 3 ? Replies.asLong(fields.get(3), script + " (4th entry)") : null);
    }

    /** Whether {@code reply} says the lock was granted; false for anything malformed. */
    static boolean grants(@Nullable Object reply) {
        try {
            return parse(reply).granted();
        } catch (RuntimeException malformed) {
            return false;
        }
    }

    boolean granted() {
        return status == 1;
    }

    /** Whether this is a handoff's reply that yielded the lock to other clients' waiters. */
    boolean yielded() {
        return status == 0 && handoff != null && handoff == YIELDED;
    }
}
