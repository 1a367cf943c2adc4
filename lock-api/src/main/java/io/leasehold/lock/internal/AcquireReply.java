package io.leasehold.lock.internal;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * acquire.lua's reply, parsed once: {@code {status, token, holderTtlMs[, handoff]}}.
 *
 * <ul>
 *   <li>{@code status} 1: the lock was granted, {@code token} is the lease's fencing token;</li>
 *   <li>{@code status} 0: contended, {@code holderTtlMs} is the holder's TTL left (the waiter's
 *       fallback), and {@code token} the holder's token;</li>
 *   <li>{@code handoff}, only in the reply of a handoff (a release that hands the lock to a local
 *       waiter in the same call): the release's outcome as release.lua answers it, or, with status
 *       0, {@link #YIELDED} when the handoff yielded the lock to other clients' waiters.</li>
 * </ul>
 *
 * @param status      1 granted, 0 contended
 * @param token       the granted lease's fencing token, or the holder's
 * @param holderTtlMs the holder's TTL left in milliseconds when contended
 * @param handoff     the handoff's 4th entry, or null in the reply of a plain acquire
 */
record AcquireReply(
        long status, long token, long holderTtlMs, @Nullable Long handoff) {

    /** A handoff's 4th entry with status 0: it yielded to other clients' waiters (see acquire.lua). */
    static final long YIELDED = 1;

    /** Parses {@code reply}; throws a runtime exception naming the reply if it is malformed. */
    static AcquireReply parse(@Nullable Object reply) {
        List<?> fields = Replies.asList(reply, "acquire");
        return new AcquireReply(
                Replies.asLong(fields.get(0), "acquire"),
                Replies.asLong(fields.get(1), "acquire"),
                Replies.asLong(fields.get(2), "acquire"),
                fields.size() > 3 ? Replies.asLong(fields.get(3), "acquire (handoff)") : null);
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
