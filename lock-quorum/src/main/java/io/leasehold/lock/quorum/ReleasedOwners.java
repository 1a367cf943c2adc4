package io.leasehold.lock.quorum;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The releases this quorum sent lately (lock key and owner, with the release's own keys and
 * arguments), so that a lease is never put back after its release (see {@link QuorumRestore}): a
 * put-back is decided on a renewal's reply, and the lease may be released while that renewal or the
 * put-back is on its way. Only the lease's own client puts it back, so what this client released is
 * all there is to know.
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
     * A release as it was sent: its keys and arguments (release.lua's), to send it again to one member;
     * {@code confirmed} once a majority answered that the owner is gone there.
     */
    record Release(List<String> keys, List<String> args, boolean confirmed) {}

    private final Map<String, Release> recent = new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Release> eldest) {
            return size() > CAPACITY;
        }
    };

    /** {@code owner} let go of {@code lockKey} with release.lua's {@code keys} and {@code args}. */
    void released(String lockKey, String owner, List<String> keys, List<String> args) {
        Release release = new Release(List.copyOf(keys), List.copyOf(args), false);
        synchronized (recent) {
            recent.putIfAbsent(key(lockKey, owner), release); // a resend keeps what the first send learnt
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
            recent.computeIfPresent(key(lockKey, owner), (k, r) -> new Release(r.keys(), r.args(), true));
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
