package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LuaScript;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The releases this quorum sent lately (lock key and owner, with the release's own call), so that a
 * lease is never put back after its release (see {@link QuorumRestore}): a put-back is decided on a
 * renewal's reply or by an acquisition's spread ({@link LeaseSpread}), and the lease may be released while
 * that renewal or the put-back is on its way. Only the lease's own client puts it back, so what this
 * client released is all there is to know.
 *
 * <p>A release is release.lua's, or, under a min-hold time, extend.lua's: the lock stays taken until the
 * hold is up, with the TTL left of it (see {@code ReleaseSender#releaseHolding} in the engine). Either
 * ends the lease, so neither may be followed by a put-back: a copy put back after a release under a hold
 * would carry the lease's own TTL, and outlive the hold by up to the rest of the lease.
 *
 * <p>Holds the latest {@value #CAPACITY} releases, forgetting the oldest first: a put-back lives for a
 * round trip or two, far less than it takes that many releases to push one out at any rate a client
 * reaches (and a put-back that misses it anyway lives no longer than the lease's renewal would have, see
 * {@link QuorumRestore}).
 *
 * <p><b>Threads.</b> Threadsafe; its one lock is held for a map operation only.
 */
final class ReleasedOwners {

    static final int CAPACITY = 4096;

    /**
     * A release as it was sent, to send it again to one member ({@link #argsNow}): its script, keys and
     * arguments, the argument that is the member's publish command, and the TTL argument to count down
     * from {@code sentNanos} (a release under a min-hold time's), or -1; {@code confirmed} once a majority
     * answered that the owner is gone there (release.lua's only).
     */
    record Release(
            LuaScript script,
            List<String> keys,
            List<String> args,
            int publishArg,
            int ttlArg,
            long sentNanos,
            boolean confirmed) {

        /** The arguments to send now: with a TTL argument, what is left of it (at least 1 ms, which ends the hold). */
        List<String> argsNow(long nowNanos) {
            return countedDown(args, ttlArg, sentNanos, nowNanos);
        }

        /**
         * {@code args} as sent at {@code sentNanos}, to send again at {@code nowNanos}: with a TTL argument
         * ({@code ttlArg} ≥ 0), what is left of it (at least 1 ms: PX needs it).
         */
        static List<String> countedDown(List<String> args, int ttlArg, long sentNanos, long nowNanos) {
            if (ttlArg < 0) {
                return args;
            }
            long left = Long.parseLong(args.get(ttlArg)) - TimeUnit.NANOSECONDS.toMillis(nowNanos - sentNanos);
            List<String> counted = new ArrayList<>(args);
            counted.set(ttlArg, Long.toString(Math.max(1, left)));
            return counted;
        }
    }

    private final Map<String, Release> recent = new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Release> eldest) {
            return size() > CAPACITY;
        }
    };

    /**
     * {@code owner} let go of {@code lockKey} with {@code script} (release.lua, or extend.lua under a
     * min-hold time), {@code keys} and {@code args}; see {@link Release} for the rest.
     */
    void released(
            String lockKey,
            String owner,
            LuaScript script,
            List<String> keys,
            List<String> args,
            int publishArg,
            int ttlArg) {
        Release release =
                new Release(script, List.copyOf(keys), List.copyOf(args), publishArg, ttlArg, System.nanoTime(), false);
        synchronized (recent) {
            // a resend keeps what the first send learnt; a release after a hold's (the engine cleaning up) replaces it
            recent.merge(
                    key(lockKey, owner),
                    release,
                    (first, again) ->
                            first.script().name().equals(again.script().name()) ? first : again);
        }
    }

    /**
     * A majority answered that {@code owner}'s lease of {@code lockKey} is gone there: a resend of its
     * release (the engine lost the reply) that finds the next holder is answered released, which its
     * own replies could no longer tell from a theft. (Every release is still sent: the same owner may
     * need releasing again, after a grant of its attempt that landed late.)
     */
    void confirmed(String lockKey, String owner) {
        synchronized (recent) {
            recent.computeIfPresent(
                    key(lockKey, owner),
                    (k, r) -> new Release(
                            r.script(), r.keys(), r.args(), r.publishArg(), r.ttlArg(), r.sentNanos(), true));
        }
    }

    /** The release of {@code owner}'s lease of {@code lockKey}, if this quorum sent one lately. */
    @Nullable
    Release find(String lockKey, String owner) {
        synchronized (recent) {
            return recent.get(key(lockKey, owner));
        }
    }

    private static String key(String lockKey, String owner) {
        return lockKey + '\n' + owner;
    }
}
