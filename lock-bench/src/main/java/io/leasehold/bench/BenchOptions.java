package io.leasehold.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The bench's command-line options: {@code --rounds N} (default 3), {@code --window SECONDS} of each
 * throughput run (default 3), {@code --out DIR} (default {@code results}), {@code --quick} (one
 * short round and fewer leases: to check that everything runs, not to quote; the renewal scenario
 * holds 10,000 and 50,000 leases, or 1,000 when quick),
 * {@code --only SCENARIO[,SCENARIO...]} (run just those of {@link #SCENARIOS}, e.g. {@code --only renewal}),
 * and {@code --no-fifo-audit} (the contended fair rows run without their {@link FifoAudit}: to see
 * what the audit costs them).
 */
record BenchOptions(
        int rounds,
        Duration warmUp,
        Duration window,
        Duration waitingWindow,
        List<Integer> renewedLeases,
        int limitRequests,
        Path out,
        Set<String> scenarios,
        boolean fifoAudit) {

    static final String UNCONTENDED = "uncontended";
    static final String CONTENDED = "contended";
    static final String LIMIT = "limit";
    static final String WAITING = "waiting";
    static final String RENEWAL = "renewal";
    static final String DEAD_WAITER = "dead-waiter";
    /** Quorums of 3 and 5 against a single node and Redisson's RedissonRedLock, on servers of its own ({@link QuorumGroup}). */
    static final String QUORUM = "quorum";
    /** The scenario groups {@code --only} can name, in the order the bench runs them. */
    static final List<String> SCENARIOS = List.of(UNCONTENDED, CONTENDED, LIMIT, WAITING, RENEWAL, DEAD_WAITER, QUORUM);

    static BenchOptions parse(String... args) {
        int rounds = 3;
        Duration window = Duration.ofSeconds(3);
        Path out = Path.of("results");
        boolean quick = false;
        boolean fifoAudit = true;
        Set<String> scenarios = Set.copyOf(SCENARIOS);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = positive("--rounds", value(args, ++i));
                case "--window" -> window = Duration.ofSeconds(positive("--window", value(args, ++i)));
                case "--out" -> out = Path.of(value(args, ++i));
                case "--quick" -> quick = true;
                case "--only" -> scenarios = scenarios(value(args, ++i));
                case "--no-fifo-audit" -> fifoAudit = false;
                default ->
                    throw new IllegalArgumentException("unknown option '" + args[i]
                            + "'; options are --rounds N, --window SECONDS, --out DIR, --quick, --only SCENARIO,"
                            + " --no-fifo-audit");
            }
        }
        if (quick) {
            return new BenchOptions(
                    1,
                    Duration.ofMillis(300),
                    Duration.ofSeconds(1),
                    Duration.ofSeconds(2),
                    List.of(1_000),
                    20_000,
                    out,
                    scenarios,
                    fifoAudit);
        }
        return new BenchOptions(
                rounds,
                Duration.ofSeconds(1),
                window,
                Duration.ofSeconds(10),
                List.of(10_000, 50_000),
                300_000,
                out,
                scenarios,
                fifoAudit);
    }

    /** Whether the scenario group {@code scenario} (one of {@link #SCENARIOS}) is to run. */
    boolean runs(String scenario) {
        return scenarios.contains(scenario);
    }

    private static Set<String> scenarios(String text) {
        Set<String> chosen = new LinkedHashSet<>();
        for (String name : text.split(",", -1)) {
            if (!SCENARIOS.contains(name.strip())) {
                throw new IllegalArgumentException("--only must name scenarios among " + String.join(", ", SCENARIOS)
                        + " (comma-separated), but was '" + text + "'");
            }
            chosen.add(name.strip());
        }
        return Set.copyOf(chosen);
    }

    private static String value(String[] args, int at) {
        if (at >= args.length) {
            throw new IllegalArgumentException("option '" + args[at - 1] + "' needs a value");
        }
        return args[at];
    }

    private static int positive(String option, String text) {
        int value;
        try {
            value = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a whole number, but was '" + text + "'");
        }
        if (value < 1) {
            throw new IllegalArgumentException(option + " must be at least 1, but was " + value);
        }
        return value;
    }
}
