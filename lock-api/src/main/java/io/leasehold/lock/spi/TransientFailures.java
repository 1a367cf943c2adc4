package io.leasehold.lock.spi;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

/**
 * The default of {@link LockBackend#isTransient(Throwable)}: which failures of a Redis call may go
 * away if the call is retried. A driver adds its own exception types on top.
 *
 * <p>Transient: any {@link IOException} (a refused or reset connection), {@link TimeoutException} or
 * {@link CancellationException} (the driver abandoned the command, as Lettuce does with commands
 * buffered or in flight when a connection drops in at-most-once mode) in the cause chain, and the
 * Redis error replies that mean "not now" rather than "never":
 * {@code LOADING}, {@code BUSY}, {@code TRYAGAIN}, {@code MASTERDOWN}, {@code CLUSTERDOWN},
 * {@code READONLY} (a replica after a failover), {@code NOREPLICAS}. Everything else, such as
 * {@code WRONGTYPE} or a script error, is not.
 *
 * <p>This class is threadsafe (stateless).
 */
public final class TransientFailures {

    /** Prefixes of Redis error replies that say the server cannot serve the call right now. */
    public static final List<String> TRANSIENT_REPLY_PREFIXES =
            List.of("LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN", "READONLY", "NOREPLICAS");

    private static final int MAX_DEPTH = 16;

    private TransientFailures() {}

    /** True when {@code failure} or one of its causes is a transient failure, as the class doc defines it. */
    public static boolean isTransient(Throwable failure) {
        Throwable current = failure;
        for (int depth = 0; current != null && depth < MAX_DEPTH; depth++) {
            if (current instanceof IOException
                    || current instanceof TimeoutException
                    || current instanceof CancellationException) {
                return true;
            }
            if (isTransientReply(current.getMessage())) {
                return true;
            }
            current = current.getCause();
        }
        return false;
    }

    /** True when {@code message} starts with one of {@link #TRANSIENT_REPLY_PREFIXES} (a Redis error reply). */
    public static boolean isTransientReply(String message) {
        if (message == null) {
            return false;
        }
        String upper = message.stripLeading().toUpperCase(Locale.ROOT);
        for (String prefix : TRANSIENT_REPLY_PREFIXES) {
            if (upper.startsWith(prefix + " ") || upper.equals(prefix)) {
                return true;
            }
        }
        return false;
    }
}
