package io.leasehold.lock.history;

import java.util.Objects;

/** Argument checks for the records, with messages that name the record, the field, the rule and the value. */
final class Checks {

    private Checks() {}

    static String name(String type, String field, String value) {
        Objects.requireNonNull(value, () -> type + "." + field);
        if (value.isBlank()) {
            throw new IllegalArgumentException(type + "." + field + " must not be blank, but was '" + value + "'");
        }
        return value;
    }

    static void order(String type, long start, long end) {
        if (end < start) {
            throw new IllegalArgumentException(
                    type + ".end must not be before its start (" + start + "), but was " + end);
        }
    }

    static long token(String type, long token) {
        if (token < 0) {
            throw new IllegalArgumentException(type + ".token must be >= 0, but was " + token);
        }
        return token;
    }
}
