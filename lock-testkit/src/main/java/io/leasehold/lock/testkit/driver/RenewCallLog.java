package io.leasehold.lock.testkit.driver;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.redis.RedisNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The renew calls a server ran, as its own {@code SLOWLOG} recorded them: how many leases each
 * carried ({@code numkeys}) and how long it held the server up (µs, the whole command: receiving the
 * arguments, the script, the reply). How a load test sees what renewal costs the other clients of a
 * shared Redis, whatever the driver.
 *
 * <p>The log keeps commands of {@value #THRESHOLD_MICROS} µs or more, not every command: Redis 7
 * logs each command a script runs as an entry of its own, so a threshold of 0 would lengthen the very
 * script measured (about a microsecond per SET) and flood the log. A renew call of so few leases that
 * it ran under the threshold is left out: it held nobody up.
 *
 * <p>Not threadsafe: one test uses it at a time.
 */
final class RenewCallLog {

    /** The slow log's threshold while renew calls are recorded, µs: far below a renew call worth reporting. */
    static final long THRESHOLD_MICROS = 20;

    private static final String RENEW_SHA = LuaScript.bundled(ScriptNames.RENEW).sha1();
    private static final int CAPACITY = 100_000;

    /** One renew call: its lease count and how long the server spent on it, µs. */
    record Call(int leases, long micros) {
        double microsPerLease() {
            return (double) micros / leases;
        }
    }

    /** The renew calls of one stretch of time, and what they tell. */
    record Calls(List<Call> calls) {

        /** The median of the calls' µs per lease: the cost of a lease as Redis measured it. */
        double medianMicrosPerLease() {
            return median(calls.stream().mapToDouble(Call::microsPerLease).toArray());
        }

        /**
         * The median of the µs per lease of the calls carrying at least half as many leases as the
         * largest: the cost of a lease in a large call, whose fixed part (finding the script, the
         * reply) is spread thin, as it is in the largest.
         */
        double medianMicrosPerLeaseOfLargeCalls() {
            int half = (mostLeases() + 1) / 2;
            return median(calls.stream()
                    .filter(call -> call.leases() >= half)
                    .mapToDouble(Call::microsPerLease)
                    .toArray());
        }

        /** The median lease count of a call. */
        double medianLeases() {
            return median(calls.stream().mapToDouble(Call::leases).toArray());
        }

        /** The most leases one call carried. */
        int mostLeases() {
            return calls.stream().mapToInt(Call::leases).max().orElse(0);
        }

        /** The longest call, µs. */
        long longestMicros() {
            return calls.stream().mapToLong(Call::micros).max().orElse(0);
        }

        private static double median(double[] values) {
            if (values.length == 0) {
                return Double.NaN;
            }
            double[] sorted = values.clone();
            Arrays.sort(sorted);
            int middle = sorted.length / 2;
            return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        }

        @Override
        public String toString() {
            return String.format(
                    java.util.Locale.ROOT,
                    "%d renew calls logged: median %.0f leases (most %d), median %.2f µs per lease (%.2f in large"
                            + " calls), longest %d µs",
                    calls.size(),
                    medianLeases(),
                    mostLeases(),
                    medianMicrosPerLease(),
                    medianMicrosPerLeaseOfLargeCalls(),
                    longestMicros());
        }
    }

    private final RedisNode server;

    /** Starts recording on {@code server}: sets the threshold and an empty log. */
    RenewCallLog(RedisNode server) {
        this.server = server;
        server.command("CONFIG", "SET", "slowlog-log-slower-than", Long.toString(THRESHOLD_MICROS));
        server.command("CONFIG", "SET", "slowlog-max-len", Integer.toString(CAPACITY));
        restart();
    }

    /** Forgets what was logged so far. */
    void restart() {
        server.command("SLOWLOG", "RESET");
    }

    /** The renew calls logged since the start or the last {@link #restart}. */
    Calls read() {
        List<Call> calls = new ArrayList<>();
        for (Object entry : (List<?>) server.command("SLOWLOG", "GET", "-1")) {
            // id, timestamp, µs, arguments (at most 32; numkeys is the third), client address, client name
            List<?> fields = (List<?>) entry;
            List<?> args = (List<?>) fields.get(3);
            if (args.size() >= 3 && isRenew(String.valueOf(args.get(0)), String.valueOf(args.get(1)))) {
                int leases = Integer.parseInt(String.valueOf(args.get(2)));
                if (leases > 0) {
                    calls.add(new Call(leases, ((Number) fields.get(2)).longValue()));
                }
            }
        }
        return new Calls(calls);
    }

    /** Puts the server's defaults back. */
    void stop() {
        server.command("CONFIG", "SET", "slowlog-log-slower-than", "10000");
        server.command("CONFIG", "SET", "slowlog-max-len", "128");
        restart();
    }

    /** EVALSHA of renew.lua's SHA, or EVAL of its source (the drivers' fallback on NOSCRIPT). */
    private static boolean isRenew(String command, String scriptOrSha) {
        return (command.equalsIgnoreCase("evalsha") && scriptOrSha.equals(RENEW_SHA))
                || (command.equalsIgnoreCase("eval") && scriptOrSha.startsWith("-- renew:"));
    }
}
