package io.leasehold.lock.history.checker;

/**
 * A span of time in microseconds since the epoch ({@link io.leasehold.lock.history.HistoryClock}),
 * both ends included: e.g. a declared Redis data loss given to the checker on the command line.
 *
 * @param start the first microsecond
 * @param end the last microsecond, not before {@code start}
 */
public record TimeWindow(long start, long end) {

    public TimeWindow {
        if (end < start) {
            throw new IllegalArgumentException("end must not be before start (" + start + "), but was " + end);
        }
    }

    /**
     * Parses {@code START..END} (microseconds since the epoch), as the checker's {@code --data-loss} takes it.
     *
     * @throws IllegalArgumentException when the text is not two integers around {@code ..}
     */
    public static TimeWindow parse(String text) {
        int dots = text.indexOf("..");
        if (dots < 0) {
            throw new IllegalArgumentException(
                    "a time window must be START..END in microseconds since the epoch, but was '" + text + "'");
        }
        try {
            return new TimeWindow(
                    Long.parseLong(text.substring(0, dots).trim()),
                    Long.parseLong(text.substring(dots + 2).trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "a time window must be START..END in microseconds since the epoch, but was '" + text + "'", e);
        }
    }

    /** True when this window and {@code [from, to]} share an instant. */
    public boolean intersects(long from, long to) {
        return start <= to && from <= end;
    }

    @Override
    public String toString() {
        return start + ".." + end;
    }
}
