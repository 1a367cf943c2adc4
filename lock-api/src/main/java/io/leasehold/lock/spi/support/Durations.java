package io.leasehold.lock.spi.support;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Durations as people read them, for exception messages and log lines: {@code 300 ms},
 * {@code 1.5 s}, {@code 2 min 5 s}, {@code 1 h 30 min}, rather than ISO-8601's
 * {@code PT0.963727665S}. Each value is rounded to the precision its unit needs (three significant
 * figures below a minute, whole seconds above), which is all a reader wants from a timeout.
 *
 * <p>Argument-check messages ({@link Checks}) keep the ISO form: they echo the value the caller
 * passed, exactly.
 *
 * <p>This class is threadsafe (stateless).
 */
public final class Durations {

    private static final long MICRO = 1_000L;
    private static final long MILLI = 1_000_000L;
    private static final long TENTH = 100_000_000L;
    private static final long SECONDS_PER_MINUTE = 60;
    private static final long SECONDS_PER_HOUR = 3_600;
    private static final long SECONDS_PER_DAY = 86_400;

    private Durations() {}

    /**
     * {@code duration} in the largest unit that keeps it short: {@code 850 ns}, {@code 250 µs},
     * {@code 964 ms}, {@code 1.5 s} (one decimal under a minute, none when it is 0), then whole
     * seconds as {@code 2 min 5 s}, {@code 1 h 30 min}, {@code 3 d 4 h} (zero parts left out).
     * Zero is {@code 0 s}; a negative duration gets a minus sign.
     */
    public static String human(@Nullable Duration duration) {
        if (duration == null) {
            return "null";
        }
        if (duration.isNegative()) {
            try {
                return "-" + human(duration.negated());
            } catch (ArithmeticException tooLongToNegate) {
                return duration.toString(); // Long.MIN_VALUE seconds: nobody waits that long
            }
        }
        if (duration.isZero()) {
            return "0 s";
        }
        if (duration.getSeconds() < SECONDS_PER_MINUTE) {
            String small = belowAMinute(duration.toNanos());
            if (small != null) {
                return small;
            }
        }
        long seconds = duration.getSeconds();
        if (duration.getNano() >= 500_000_000 && seconds < Long.MAX_VALUE) {
            seconds++;
        }
        return wholeSeconds(seconds);
    }

    /** Null when {@code nanos} rounds to a whole minute or more. */
    private static @Nullable String belowAMinute(long nanos) {
        if (nanos < MICRO) {
            return nanos + " ns";
        }
        if (nanos < MILLI - MICRO / 2) {
            return rounded(nanos, MICRO) + " µs";
        }
        if (nanos < 1_000 * MILLI - MILLI / 2) {
            return rounded(nanos, MILLI) + " ms";
        }
        long tenths = rounded(nanos, TENTH);
        if (tenths >= SECONDS_PER_MINUTE * 10) {
            return null;
        }
        return (tenths % 10 == 0 ? Long.toString(tenths / 10) : tenths / 10 + "." + tenths % 10) + " s";
    }

    private static String wholeSeconds(long seconds) {
        StringBuilder text = new StringBuilder();
        long rest = seconds;
        rest = part(text, rest, SECONDS_PER_DAY, "d");
        rest = part(text, rest, SECONDS_PER_HOUR, "h");
        rest = part(text, rest, SECONDS_PER_MINUTE, "min");
        part(text, rest, 1, "s");
        return text.toString();
    }

    /** Appends the whole {@code unit}s of {@code seconds} (nothing if none) and returns what is left. */
    private static long part(StringBuilder text, long seconds, long unit, String symbol) {
        long count = seconds / unit;
        if (count > 0) {
            if (text.length() > 0) {
                text.append(' ');
            }
            text.append(count).append(' ').append(symbol);
        }
        return seconds % unit;
    }

    /** {@code nanos / unit}, rounded half up. */
    private static long rounded(long nanos, long unit) {
        return (nanos + unit / 2) / unit;
    }
}
