package io.leasehold.lock.quorum;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** Reads the members' script replies (integers as {@link Long}, strings, lists), as the scripts' headers state them. */
final class Replies {

    private Replies() {}

    /** {@code reply} as a list, or an {@link IllegalStateException} naming the script and the reply. */
    static List<?> list(@Nullable Object reply, String script) {
        if (reply instanceof List) {
            return (List<?>) reply;
        }
        throw unexpected(reply, script);
    }

    /** {@code value} (an integer, or a decimal string) as a long, or an {@link IllegalStateException}. */
    static long asLong(@Nullable Object value, String script) {
        if (value instanceof Long) {
            return (Long) value;
        }
        if (value instanceof Number) {
            return ((Number) value).longValue();
        }
        if (value instanceof String) {
            try {
                return Long.parseLong((String) value);
            } catch (NumberFormatException e) {
                throw unexpected(value, script);
            }
        }
        throw unexpected(value, script);
    }

    /** The first entry of a list reply as a long, or {@code fallback} when the reply is no such list. */
    static long status(@Nullable Object reply, long fallback) {
        if (reply instanceof List && !((List<?>) reply).isEmpty()) {
            Object first = ((List<?>) reply).get(0);
            if (first instanceof Number) {
                return ((Number) first).longValue();
            }
        }
        return fallback;
    }

    static IllegalStateException unexpected(@Nullable Object reply, String script) {
        return new IllegalStateException("a quorum member answered " + script + " with " + reply
                + ", which is not a reply its script's header allows");
    }
}
