package io.leasehold.lock.spi;

import java.util.Objects;

/**
 * The Redis layout of one lock: the lock key, its fencing counter, its release channel and its
 * yield marker share the hash tag {@code {<name>}}, so that all of them live in one cluster slot.
 *
 * <pre>
 * &lt;prefix&gt;{&lt;name&gt;}            the lock: "&lt;owner&gt;:&lt;token&gt;", PX lease
 * &lt;prefix&gt;{&lt;name&gt;}:fence      the fencing counter: the last token (idle TTL; see acquire.lua)
 * &lt;prefix&gt;{&lt;name&gt;}:released   the release channel
 * &lt;prefix&gt;{&lt;name&gt;}:yielded    the release marker: a zset of the owners whose release recently let the lock go (see release.lua)
 * &lt;prefix&gt;{&lt;name&gt;}:queue      the wait queue: a zset of waiting owners by enqueue order (see acquire.lua)
 * &lt;prefix&gt;{&lt;name&gt;}:waiters    the waiters' leases: a zset of the same owners by deadline (server ms)
 * </pre>
 *
 * <p>Inside the braces, {@code %} is written {@code %25} and {@code }} is written {@code %7D}, and
 * nothing else changes, so that names without those two characters keep readable keys
 * ({@code leasehold:{orders:42}}). This keeps the mapping injective (two names never share a lock)
 * and the hash tag — what Redis Cluster hashes: the bytes between the first {@code {} and the next
 * {@code }} — non-empty and free of {@code }}: a name such as {@code }x} would otherwise end the tag
 * at once, and its lock key, fence key and channel would hash to different slots (CROSSSLOT). The
 * prefix must contain neither brace ({@code LockClient.Builder.keyPrefix} checks that).
 *
 * <p>This class is threadsafe.
 */
public final class LockKeys {

    private LockKeys() {}

    /**
     * The lock key of {@code name}: {@code <prefix>{<escaped name>}}.
     *
     * @throws IllegalArgumentException when {@code name} is empty (its hash tag would be empty)
     */
    public static String lockKey(String prefix, String name) {
        Objects.requireNonNull(prefix, "prefix");
        return prefix + "{" + hashTag(name) + "}";
    }

    /**
     * The quorum record of a node of a quorum of independent masters: {@code <prefix>quorum}, a hash
     * without TTL: the server process it belongs to, whether the node takes part in grants (see
     * quorum-enlist.lua), and the largest fencing token committed on the node (see quorum-commit.lua).
     * No lock key can be it: every lock key has a hash tag.
     */
    public static String quorumRecordKey(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        return prefix + "quorum";
    }

    /** The fencing counter's key of {@code name}: the lock key and {@code :fence}. */
    public static String fenceKey(String prefix, String name) {
        return lockKey(prefix, name) + ":fence";
    }

    /** The release channel of {@code name}: the lock key and {@code :released}. */
    public static String releaseChannel(String prefix, String name) {
        return lockKey(prefix, name) + ":released";
    }

    /**
     * The release marker of {@code name}: the lock key and {@code :yielded}, a sorted set of releasing
     * owners by deadline. A release that finds waiters queued in Redis (release.lua), or a handoff
     * that yields (handoff.lua), adds its owner for as long as it may be resent, so that a resend of
     * that release can tell it released from it was lost.
     */
    public static String yieldMarkerKey(String prefix, String name) {
        return lockKey(prefix, name) + ":yielded";
    }

    /**
     * The wait queue of {@code name}: the lock key and {@code :queue}, a sorted set of the waiting
     * owners scored by the order in which they joined (acquire.lua). It expires with the
     * longest waiter lease in it.
     */
    public static String queueKey(String prefix, String name) {
        return lockKey(prefix, name) + ":queue";
    }

    /**
     * The waiter leases of {@code name}: the lock key and {@code :waiters}, a sorted set of the
     * same owners as {@link #queueKey} scored by the server time (ms) at which their place lapses
     * unless renewed.
     */
    public static String waitersKey(String prefix, String name) {
        return lockKey(prefix, name) + ":waiters";
    }

    /**
     * The quorum queue of {@code name} on one member of a quorum: the lock key and {@code :quorum-queue},
     * a sorted set of fair waiters scored by the tickets the quorum chose (quorum-fair-acquire.lua). It
     * expires with the longest waiter lease in it.
     */
    public static String quorumQueueKey(String prefix, String name) {
        return lockKey(prefix, name) + ":quorum-queue";
    }

    /**
     * The waiter leases of {@link #quorumQueueKey}: the lock key and {@code :quorum-waiters}, the same
     * waiters scored by the server time (ms) at which their place lapses unless renewed.
     */
    public static String quorumWaitersKey(String prefix, String name) {
        return lockKey(prefix, name) + ":quorum-waiters";
    }

    /** {@code name} with {@code %} and {@code }} percent-encoded: never empty, never containing {@code }}. */
    private static String hashTag(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("name must not be empty: its hash tag {} would be empty, and Redis"
                    + " Cluster would hash each key of the lock on its own");
        }
        if (name.indexOf('%') < 0 && name.indexOf('}') < 0) {
            return name;
        }
        StringBuilder tag = new StringBuilder(name.length() + 8);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '%') {
                tag.append("%25");
            } else if (c == '}') {
                tag.append("%7D");
            } else {
                tag.append(c);
            }
        }
        return tag.toString();
    }
}
