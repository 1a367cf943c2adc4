package io.leasehold.lock.quorum;

import java.util.LinkedHashMap;
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
 * <p>A force-release ends every lease of its lock: it is kept by lock key alone, and ends the put-backs
 * of the leases confirmed before it was sent ({@link #find}'s {@code sinceNanos}).
 *
 * <p>Keeps each release for {@value #KEEP_SECONDS} s at least, whatever the rate of releases (a put-back is
 * decided at most a spread's 2.5 s after its lease's grant, or a renewal's round trip after it was sent,
 * and lands a round trip later), and then only the latest {@value #CAPACITY}; beyond
 * {@value #HARD_CAPACITY} the oldest go, so that no rate of releases holds memory without bound (a
 * put-back that misses its release then lives no longer than the lease's renewal would have, see
 * {@link QuorumRestore}).
 *
 * <p><b>Threads.</b> Threadsafe; its one lock is held for a map operation only.
 */
final class ReleasedOwners {

    static final int CAPACITY = 4096;
    static final int HARD_CAPACITY = 1 << 16;
    static final long KEEP_SECONDS = 10;

    /**
     * A release as it was sent ({@code sent}); {@code confirmed} once a majority answered that the owner
     * is gone there (release.lua's only).
     */
    record Release(SentRelease sent, boolean confirmed) {}

    private final Map<String, Release> recent = keptMap();

    /** Force-releases by lock key (guarded by {@link #recent}'s lock): the latest of each. */
    private final Map<String, Release> forced = keptMap();

    /** A map in insertion order that forgets its oldest entries as the class doc says. */
    private static Map<String, Release> keptMap() {
        return new LinkedHashMap<>(64, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Release> eldest) {
                return size() > HARD_CAPACITY || (size() > CAPACITY && kept(eldest.getValue()));
            }
        };
    }

    /** Whether {@code release} was kept its {@value #KEEP_SECONDS} s. */
    private static boolean kept(Release release) {
        return System.nanoTime() - release.sent().sentNanos() > TimeUnit.SECONDS.toNanos(KEEP_SECONDS);
    }

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

    /** Lock {@code lockKey} was force-released with {@code sent} (force-release.lua): every lease of it ends. */
    void forceReleased(String lockKey, SentRelease sent) {
        synchronized (recent) {
            forced.remove(lockKey); // re-inserted as the latest
            forced.put(lockKey, new Release(sent, false));
        }
    }

    /**
     * What ended {@code owner}'s lease of {@code lockKey}, if this quorum sent it lately: the lease's
     * release, or else a force-release of the lock sent at or after {@code sinceNanos} (when the caller
     * last knew the lease held: a force sent before that did not end it).
     */
    @Nullable
    Release find(String lockKey, String owner, long sinceNanos) {
        synchronized (recent) {
            Release own = recent.get(key(lockKey, owner));
            if (own != null) {
                return own;
            }
            Release force = forced.get(lockKey);
            return force != null && force.sent().sentNanos() - sinceNanos >= 0 ? force : null;
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
