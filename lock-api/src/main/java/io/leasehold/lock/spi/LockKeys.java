package io.leasehold.lock.spi;

/**
 * The Redis layout of one lock: the lock key, its fencing counter and its release channel share the
 * hash tag {@code {<name>}}, so that all three live in one cluster slot.
 *
 * <pre>
 * &lt;prefix&gt;{&lt;name&gt;}            the lock: "&lt;owner&gt;:&lt;token&gt;", PX lease
 * &lt;prefix&gt;{&lt;name&gt;}:fence      the fencing counter: the last token (idle TTL; see acquire.lua)
 * &lt;prefix&gt;{&lt;name&gt;}:released   the release channel
 * </pre>
 */
public final class LockKeys {

    private LockKeys() {
    }

    public static String lockKey(String prefix, String name) {
        return prefix + "{" + name + "}";
    }

    public static String fenceKey(String prefix, String name) {
        return lockKey(prefix, name) + ":fence";
    }

    public static String releaseChannel(String prefix, String name) {
        return lockKey(prefix, name) + ":released";
    }
}
