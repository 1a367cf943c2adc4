package io.leasehold.bench;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The bench's command-line options: {@code --rounds N} (default 3), {@code --window SECONDS} of each
 * throughput run (default 3), {@code --out DIR} (default {@code results}), and {@code --quick} (one
 * short round and fewer leases: to check that everything runs, not to quote).
 */
record BenchOptions(int rounds, Duration warmUp, Duration window, Duration waitingWindow, int renewedLeases,
        int limitRequests, Path out) {

    static BenchOptions parse(String... args) {
        int rounds = 3;
        Duration window = Duration.ofSeconds(3);
        Path out = Path.of("results");
        boolean quick = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = positive("--rounds", value(args, ++i));
                case "--window" -> window = Duration.ofSeconds(positive("--window", value(args, ++i)));
                case "--out" -> out = Path.of(value(args, ++i));
                case "--quick" -> quick = true;
                default -> throw new IllegalArgumentException("unknown option '" + args[i]
                        + "'; options are --rounds N, --window SECONDS, --out DIR, --quick");
            }
        }
        if (quick) {
            return new BenchOptions(1, Duration.ofMillis(300), Duration.ofSeconds(1), Duration.ofSeconds(2), 1_000, 20_000, out);
        }
        return new BenchOptions(rounds, Duration.ofSeconds(1), window, Duration.ofSeconds(10), 10_000, 300_000, out);
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
