package io.leasehold.bench;

import java.time.LocalDate;
import java.util.Locale;
import java.util.stream.Collectors;

/** Where and how the bench ran, printed above the table so that figures are never quoted without it. */
record Environment(String date, int cores, String java, String redis, String parameters) {

    static Environment describe(RedisProbe probe, BenchOptions options) {
        return new Environment(
                LocalDate.now().toString(),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
                probe.version(),
                options.rounds() + " round(s); throughput runs: "
                        + options.warmUp().toMillis() + " ms warm-up, "
                        + options.window().toMillis() + " ms measured; waiting window "
                        + options.waitingWindow().toSeconds()
                        + " s; "
                        + options.renewedLeases().stream()
                                .map(leases -> String.format(Locale.ROOT, "%,d", leases))
                                .collect(Collectors.joining(" and "))
                        + " renewed leases"
                        + (options.fifoAudit() ? "" : "; FIFO audit off")
                        + (options.scenarios().size() < BenchOptions.SCENARIOS.size()
                                ? "; only "
                                        + BenchOptions.SCENARIOS.stream()
                                                .filter(options::runs)
                                                .toList()
                                : ""));
    }
}
