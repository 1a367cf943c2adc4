package io.leasehold.bench;

import java.util.Arrays;

/** Small statistics over measured values. */
final class Stats {

    private Stats() {}

    /** The {@code p}-th percentile (nearest rank) of {@code sorted}; NaN if empty. */
    static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Standard deviation over mean, in percent (0 = every worker served equally); NaN if nothing was served. */
    static double coefficientOfVariationPercent(long[] counts) {
        double mean = Arrays.stream(counts).average().orElse(0);
        if (mean == 0) {
            return Double.NaN;
        }
        double variance =
                Arrays.stream(counts).mapToDouble(c -> (c - mean) * (c - mean)).sum() / counts.length;
        return 100.0 * Math.sqrt(variance) / mean;
    }

    /** The median of {@code values}; NaN if empty. */
    static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /**
     * The median of {@code count} values of which only {@code logged} are known, the others being
     * smaller than every known one (runs under a slow log's threshold); NaN if the median is among the
     * unknown ones, or if there are none. A count below the known ones (read from counters a moment
     * apart from the log, while calls went on) counts them all.
     */
    static double medianOfLogged(double[] logged, long runs) {
        long count = Math.max(runs, logged.length);
        long below = count - logged.length;
        if (count == 0) {
            return Double.NaN;
        }
        double[] sorted = logged.clone();
        Arrays.sort(sorted);
        long lower = (count - 1) / 2; // the middle rank, or the lower of the two middle ranks
        long upper = count / 2;
        if (lower < below) {
            return Double.NaN;
        }
        return (sorted[(int) (lower - below)] + sorted[(int) (upper - below)]) / 2;
    }
}
