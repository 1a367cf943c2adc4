package io.leasehold.lock.internal;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads script replies as mapped by the SPI (Long, String, List, null). A reply of the wrong shape
 * means a driver bug or a foreign script under our keys, so it fails loudly with the reply shown.
 */
final class Replies {

    private Replies() {}

    static long asLong(@Nullable Object reply, String what) {
        if (reply instanceof Long) {
            return (Long) reply;
        }
        if (reply instanceof Number) {
            return ((Number) reply).longValue();
        }
        if (reply instanceof String) {
            try {
                return Long.parseLong((String) reply);
            } catch (NumberFormatException e) {
                throw unexpected(reply, what);
            }
        }
        if (reply instanceof byte[]) {
            return asLong(new String((byte[]) reply, java.nio.charset.StandardCharsets.UTF_8), what);
        }
        throw unexpected(reply, what);
    }

    static List<?> asList(@Nullable Object reply, String what) {
        if (reply instanceof List) {
            return (List<?>) reply;
        }
        throw unexpected(reply, what);
    }

    static IllegalStateException unexpected(@Nullable Object reply, String what) {
        return new IllegalStateException("unexpected reply to " + what + ": " + reply
                + (reply == null ? "" : " (" + reply.getClass().getName() + ")"));
    }
}
