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
}
