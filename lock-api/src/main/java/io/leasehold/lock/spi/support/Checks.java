package io.leasehold.lock.spi.support;

import io.leasehold.lock.LockClient;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Argument checks whose messages name the parameter, the rule, the value and (when there is one)
 * the lock, e.g. {@code leaseTime must be greater than 0, but was PT0S (lock 'orders:42')}.
 * Keeping message and check in one place keeps them in agreement.
 */
public final class Checks {

    /** Longest accepted duration: a year keeps every nanosecond and millisecond sum far from overflow. */
    public static final Duration MAX_DURATION = Duration.ofDays(365);

    private Checks() {}

    public static String lockName(@Nullable String name) {
        if (name == null) {
            throw new IllegalArgumentException("name must not be null");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank, but was '" + name + "'");
        }
        if (name.length() > LockClient.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(
                    "name must be at most " + LockClient.MAX_NAME_LENGTH + " characters, but was " + name.length()
                            + " characters ('" + name.substring(0, prefixEnd(name, 32)) + "...')");
        }
        // An unpaired surrogate encodes to UTF-8 as '?', so distinct names would share one lock.
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("name must be well-formed Unicode, but has an unpaired surrogate "
                        + unicodeEscape(c) + " at index " + i + " ('" + escapeUnpairedSurrogates(name) + "')");
            }
        }
        return name;
    }

    /** {@code name} with each unpaired surrogate shown as its Java escape (backslash, 'u', four hex digits), which a log can show. */
    private static String escapeUnpairedSurrogates(String name) {
        StringBuilder shown = new StringBuilder(name.length() + 12);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                shown.append(c).append(name.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                shown.append(unicodeEscape(c));
            } else {
                shown.append(c);
            }
        }
        return shown.toString();
    }

    private static String unicodeEscape(char c) {
        return String.format("\\u%04X", (int) c);
    }

    /** The end of a prefix of about {@code length} chars that does not split a surrogate pair. */
    private static int prefixEnd(String name, int length) {
        return Character.isHighSurrogate(name.charAt(length - 1)) ? length - 1 : length;
    }

    /** A duration that must be &gt; 0 and at most {@link #MAX_DURATION}. */
    public static Duration positive(String parameter, @Nullable Duration value, @Nullable String lockName) {
        notNull(parameter, value, lockName);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(
                    parameter + " must be greater than 0, but was " + value + where(lockName));
        }
        return atMostMax(parameter, value, lockName);
    }

    /** A duration that must be &ge; 0 and at most {@link #MAX_DURATION}. */
    public static Duration notNegative(String parameter, @Nullable Duration value, @Nullable String lockName) {
        notNull(parameter, value, lockName);
        if (value.isNegative()) {
            throw new IllegalArgumentException(parameter + " must not be negative, but was " + value + where(lockName));
        }
        return atMostMax(parameter, value, lockName);
    }

    /** A duration that must be at least {@code min}. */
    public static Duration atLeast(String parameter, Duration value, Duration min, @Nullable String lockName) {
        if (value.compareTo(min) < 0) {
            throw new IllegalArgumentException(
                    parameter + " must be at least " + min + ", but was " + value + where(lockName));
        }
        return value;
    }

    public static <T> T notNull(String parameter, @Nullable T value, @Nullable String lockName) {
        if (value == null) {
            throw new IllegalArgumentException(parameter + " must not be null" + where(lockName));
        }
        return value;
    }

    private static Duration atMostMax(String parameter, Duration value, @Nullable String lockName) {
        if (value.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(
                    parameter + " must be at most " + MAX_DURATION + ", but was " + value + where(lockName));
        }
        return value;
    }

    public static String where(@Nullable String lockName) {
        return lockName == null ? "" : " (lock '" + lockName + "')";
    }
}
