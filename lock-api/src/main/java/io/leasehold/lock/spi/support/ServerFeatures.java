package io.leasehold.lock.spi.support;

/**
 * What the connected server can do, read from {@code INFO server}. Sharded pub/sub
 * ({@code SSUBSCRIBE}/{@code SPUBLISH}) arrived in Redis 7.0; Valkey reports a compatible
 * {@code redis_version} too.
 *
 * <p>This class is threadsafe (stateless).
 */
public final class ServerFeatures {

    private static final int SHARDED_PUBSUB_MAJOR = 7;

    private ServerFeatures() {}

    /** True when the {@code INFO} text names a {@code redis_version} of 7 or later. */
    public static boolean supportsShardedPubSub(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                String version = line.substring("redis_version:".length()).trim();
                int dot = version.indexOf('.');
                String major = dot < 0 ? version : version.substring(0, dot);
                try {
                    return Integer.parseInt(major) >= SHARDED_PUBSUB_MAJOR;
                } catch (NumberFormatException e) {
                    return false;
                }
            }
        }
        return false;
    }
}
