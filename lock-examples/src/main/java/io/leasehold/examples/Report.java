package io.leasehold.examples;

import java.io.PrintStream;

/** Prints a {@link SaleResult}: the lines the README quotes and the demo's test checks. */
final class Report {

    private Report() {}

    static void unlocked(SaleResult r, PrintStream out) {
        out.printf(
                "  orders confirmed:    %d for a stock of %d%s%n",
                r.confirmed(),
                r.stock(),
                r.oversold() > 0 ? "  -> OVERSOLD by " + r.oversold() : "  (no oversell this time; run it again)");
        out.printf(
                "  stock left in store: %d   (only %d decrements survived: %d sales wrote over each other)%n",
                r.stockLeft(), r.stock() - r.stockLeft(), r.lostUpdates());
        throughput(r, out);
        failures(r, out);
    }

    static void locked(SaleResult r, PrintStream out) {
        out.printf(
                "  orders confirmed:    %d for a stock of %d%s%n",
                r.confirmed(), r.stock(), r.confirmed() == r.stock() ? "  -> exact" : "  -> WRONG");
        out.printf("  stock left in store: %d%n", r.stockLeft());
        out.printf(
                "  acquisitions:        %d (%d handoffs between nodes), fencing tokens %s%n",
                r.acquisitions().size(),
                r.handoffsBetweenNodes(),
                r.tokensDistinct() ? "all distinct" : "NOT DISTINCT");
        out.printf(
                "  highest fencing token: %d   (each token is at least the Redis server clock in microseconds)%n",
                r.highestFencingToken());
        out.printf(
                "  acquire wait:        p50 %.1f ms, p99 %.1f ms%n",
                r.waitPercentileMillis(50), r.waitPercentileMillis(99));
        throughput(r, out);
        out.printf("  stale accesses refused by the store: %d%n", r.staleRejected());
        failures(r, out);
    }

    private static void throughput(SaleResult r, PrintStream out) {
        out.printf(
                "  throughput:          %.0f requests/s (%d requests in %.2f s)%n",
                r.requestsPerSecond(), r.requests(), r.elapsed().toNanos() / 1e9);
    }

    private static void failures(SaleResult r, PrintStream out) {
        if (!r.failures().isEmpty()) {
            out.printf(
                    "  WORKER FAILURES: %d, first: %s%n",
                    r.failures().size(), r.failures().get(0));
        }
    }
}
