package io.leasehold.lock.quorum;

import java.util.LinkedHashMap;
import java.util.Map;
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

    /** A release as it was sent ({@code sent}); {@code confirmed} once a majority answered that the owner is gone there (release.lua's only). */
    record Release(SentRelease sent, boolean confirmed) {}

    private final Map<String, Release> recent = new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Release> eldest) {
            return size() > CAPACITY;
        }
    };

    /** {@code owner} let go of {@code lockKey} with {@code sent} (release.lua, or extend.lua under a min-hold time). */
    void released(String lockKey, String owner, SentRelease sent) {
        Release release = new Release(sent, false);
        synchronized (recent) {
            // a resend keeps what the first send learnt; a release after a hold's (the engine cleaning up) replaces it
            recent.merge(
                    key(lockKey, owner),
                    release,
                    (first, again) -> first.sent()
                                    .script()
                                    .name()
                                    .equals(again.sent().script().name())
                            ? first
                            : again);
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
            recent.computeIfPresent(key(lockKey, owner), (k, r) -> new Release(r.sent(), true));
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
