package io.leasehold.examples;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * What one run of the sale did.
 *
 * @param stock           items on sale at the start
 * @param requests        purchase requests handled
 * @param confirmed       orders confirmed to shoppers
 * @param soldOut         shoppers told "sold out"
 * @param staleRejected   stock reads and writes the store refused because their fencing token was stale
 * @param stockLeft       the stock in the store at the end
 * @param elapsed         wall time of the run
 * @param acquireWaitsNanos how long each acquisition waited (empty without a lock)
 * @param acquisitions    every acquisition as (fencing token, node index) (empty without a lock)
 * @param failures        worker exceptions, if any
 */
record SaleResult(
        long stock,
        long requests,
        long confirmed,
        long soldOut,
        long staleRejected,
        long stockLeft,
        Duration elapsed,
        long[] acquireWaitsNanos,
        List<Acquisition> acquisitions,
        List<Throwable> failures) {

    /** One acquisition of the sale's lock. */
    record Acquisition(long fencingToken, int node) {}

    /** Orders confirmed beyond the stock. */
    long oversold() {
        return Math.max(0, confirmed - stock);
    }

    /** Sales whose stock write was overwritten by another node's write. */
    long lostUpdates() {
        return Math.max(0, confirmed - (stock - stockLeft));
    }

    double requestsPerSecond() {
        return requests / Math.max(1e-9, elapsed.toNanos() / 1e9);
    }

    /** The nearest-rank percentile of the acquire waits, in milliseconds. */
    double waitPercentileMillis(double percentile) {
        if (acquireWaitsNanos.length == 0) {
            return 0;
        }
        long[] sorted = acquireWaitsNanos.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)] / 1e6;
    }

    long highestFencingToken() {
        return acquisitions.stream().mapToLong(Acquisition::fencingToken).max().orElse(0);
    }

    boolean tokensDistinct() {
        return acquisitions.stream()
                        .mapToLong(Acquisition::fencingToken)
                        .distinct()
                        .count()
                == acquisitions.size();
    }

    /** Times the lock went from a holder on one node to a holder on another, in token order. */
    long handoffsBetweenNodes() {
        List<Acquisition> inOrder = acquisitions.stream()
                .sorted((a, b) -> Long.compare(a.fencingToken(), b.fencingToken()))
                .toList();
        long handoffs = 0;
        for (int i = 1; i < inOrder.size(); i++) {
            if (inOrder.get(i).node() != inOrder.get(i - 1).node()) {
                handoffs++;
            }
        }
        return handoffs;
    }
}
