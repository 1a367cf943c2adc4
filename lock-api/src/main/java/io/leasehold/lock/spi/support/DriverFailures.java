package io.leasehold.lock.spi.support;

import io.leasehold.lock.spi.TransientFailures;

/**
 * The transient-failure rule both drivers follow, by the two exception families a Redis client has:
 * its type for the server's error replies (transient only for the "not now" replies
 * {@link TransientFailures} knows: {@code LOADING}, {@code READONLY}, ...), and its base type for
 * everything else, which comes from the client side of the connection (not connected, reset, timed
 * out, no pooled connection left) and so is transient. Whatever is neither falls back to
 * {@link TransientFailures#isTransient}.
 *
 * <p>This class is threadsafe (stateless).
 */
public final class DriverFailures {

    private DriverFailures() {}

    /**
     * Whether {@code failure} is transient: the first cause that is a {@code serverReply} decides by
     * its message; else the first that is a {@code clientSide} failure is transient; else the default.
     *
     * @param serverReply the client's type for Redis error replies (Lettuce's {@code RedisCommandExecutionException},
     *                    Jedis's {@code JedisDataException})
     * @param clientSide  the client's base exception type (Lettuce's {@code RedisException}, Jedis's {@code JedisException})
     */
    public static boolean isTransient(
            Throwable failure, Class<? extends Throwable> serverReply, Class<? extends Throwable> clientSide) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (serverReply.isInstance(cause)) {
                return TransientFailures.isTransient(cause);
            }
            if (clientSide.isInstance(cause)) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return TransientFailures.isTransient(failure);
    }
}
