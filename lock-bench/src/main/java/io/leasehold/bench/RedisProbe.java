package io.leasehold.bench;

import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RespClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Reads the server's own counters over one connection of its own: commands run (from
 * {@code INFO commandstats}, which counts the commands scripts run as well as the scripts), script
 * calls, server CPU ({@code INFO cpu}), and script durations from {@code SLOWLOG}. Its own commands
 * are left out of the counts.
 */
final class RedisProbe implements AutoCloseable {

    /** The probe's own commands (and the server's housekeeping a client may send), not counted. */
    private static final Set<String> NOT_COUNTED =
            Set.of("info", "slowlog", "config", "ping", "hello", "client", "select", "cluster", "command", "script");

    /** What the server had done at one moment. */
    record Snapshot(long commands, long scriptCalls, long pubSubCalls, double cpuSeconds) {
        Snapshot minus(Snapshot earlier) {
            return new Snapshot(
                    commands - earlier.commands,
                    scriptCalls - earlier.scriptCalls,
                    pubSubCalls - earlier.pubSubCalls,
                    cpuSeconds - earlier.cpuSeconds);
        }

        /**
         * Commands clients sent (round trips): script calls plus (un)subscribes. The commands a
         * script runs are counted in {@link #commands} but are not round trips.
         */
        long calls() {
            return scriptCalls + pubSubCalls;
        }
    }

    private static final Set<String> PUB_SUB =
            Set.of("subscribe", "unsubscribe", "ssubscribe", "sunsubscribe", "psubscribe", "punsubscribe");

    /**
     * Script runs since {@link #startScriptLog}: counted, the longest and the median from the slow log,
     * how many ran longer than a millisecond, and how often the operating system took the server's
     * CPU away meanwhile ({@link #serverPreemptions}; -1 when that cannot be read).
     */
    record ScriptRuns(long count, long longestMicros, double medianMicros, long overOneMs, long serverPreemptions) {}

    /**
     * The slow log's threshold while script runs are recorded: far below the 1 ms a renew call may
     * take, and below all but the smallest renew calls (a few leases), now that batches are sized to
     * the server's cost.
     */
    static final long SCRIPT_LOG_THRESHOLD_MICROS = 20;

    private final RedisEndpoint endpoint;
    private final RespClient connection;
    private long scriptCallsAtStart;
    private long preemptionsAtStart;

    RedisProbe(RedisEndpoint endpoint) {
        this.endpoint = endpoint;
        try {
            connection = RespClient.connect(endpoint, Duration.ofSeconds(10));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Snapshot snapshot() {
        long commands = 0;
        long scripts = 0;
        long pubSub = 0;
        for (String line : call("INFO", "commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String command = line.substring("cmdstat_".length(), line.indexOf(':'));
            String calls = line.substring(
                    line.indexOf("calls=") + "calls=".length(), line.indexOf(',', line.indexOf("calls=")));
            long count = Long.parseLong(calls);
            if (NOT_COUNTED.contains(command)
                    || command.startsWith("script|")
                    || command.startsWith("client|")
                    || command.startsWith("config|")
                    || command.startsWith("slowlog|")) {
                continue;
            }
            commands += count;
            if (command.equals("evalsha")
                    || command.equals("eval")
                    || command.equals("evalsha_ro")
                    || command.equals("fcall")) {
                scripts += count;
            }
            if (PUB_SUB.contains(command)) {
                pubSub += count;
            }
        }
        double cpu = 0;
        for (String line : call("INFO", "cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return new Snapshot(commands, scripts, pubSub, cpu);
    }

    /**
     * Starts recording script runs: from now on the slow log keeps every command of at least
     * {@link #SCRIPT_LOG_THRESHOLD_MICROS} (up to {@code capacity} entries), and script calls are
     * counted from {@code INFO commandstats}. Not a threshold of 0: Redis 7 logs each command a script
     * runs as an entry of its own, and logging it (about a microsecond each on a two-core machine)
     * lengthens the very script being measured, the more so the more commands it runs; a threshold far
     * below any run worth reporting logs the scripts alone. The count comes from the server's
     * counters, so that no log capacity can drop a call.
     */
    void startScriptLog(int capacity) {
        call("CONFIG", "SET", "slowlog-log-slower-than", Long.toString(SCRIPT_LOG_THRESHOLD_MICROS));
        call("CONFIG", "SET", "slowlog-max-len", Integer.toString(capacity));
        call("SLOWLOG", "RESET");
        scriptCallsAtStart = snapshot().scriptCalls();
        preemptionsAtStart = serverPreemptions();
    }

    /**
     * How many times the operating system has preempted the server process so far (its involuntary
     * context switches, from {@code /proc/<pid>/status}), or -1 where that cannot be read (a server
     * on another machine, or not Linux). The slow log times a command by the wall clock: a script
     * the server was descheduled in reads as long as the pause, however little work it did. Told
     * beside the longest run, it says which long runs were the machine's, not the script's.
     */
    long serverPreemptions() {
        String pid = infoField("server", "process_id");
        if (pid == null) {
            return -1;
        }
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc", pid, "status"))) {
                if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | RuntimeException notLocal) {
            // the server runs elsewhere, or this is not Linux
        }
        return -1;
    }

    /**
     * The script runs since {@link #startScriptLog}: how many, the longest (0 when none took
     * {@link #SCRIPT_LOG_THRESHOLD_MICROS} or more) and the median (the runs not logged were shorter
     * than every logged one; NaN if the median is among them); then stops logging.
     */
    ScriptRuns stopScriptLog() {
        long count = snapshot().scriptCalls() - scriptCallsAtStart;
        long preemptionsNow = serverPreemptions();
        long preemptions = preemptionsNow < 0 || preemptionsAtStart < 0 ? -1 : preemptionsNow - preemptionsAtStart;
        Object entries = raw("SLOWLOG", "GET", "-1");
        call("CONFIG", "SET", "slowlog-log-slower-than", "10000");
        List<Double> logged = new ArrayList<>();
        for (Object entry : (List<?>) entries) {
            List<?> fields = (List<?>) entry;
            List<?> args = (List<?>) fields.get(3);
            String command = String.valueOf(args.get(0)).toLowerCase();
            if (command.equals("evalsha") || command.equals("eval")) {
                logged.add(((Long) fields.get(2)).doubleValue());
            }
        }
        call("SLOWLOG", "RESET");
        double[] micros = logged.stream().mapToDouble(Double::doubleValue).toArray();
        long longest = (long) Arrays.stream(micros).max().orElse(0);
        long overOneMs = Arrays.stream(micros).filter(run -> run > 1_000).count();
        return new ScriptRuns(
                Math.max(count, micros.length), longest, Stats.medianOfLogged(micros, count), overOneMs, preemptions);
    }

    /** The server probed, for a scenario that opens connections of its own (the FIFO audit). */
    RedisEndpoint endpoint() {
        return endpoint;
    }

    /** Loads {@code script} into the script cache; returns its SHA. */
    String loadScript(String script) {
        return call("SCRIPT", "LOAD", script);
    }

    /** The server's version, from INFO server. */
    String version() {
        String version = infoField("server", "redis_version");
        return version == null ? "(unknown)" : version;
    }

    /** One field of an INFO section, or null if the server does not tell it. */
    private String infoField(String section, String field) {
        for (String line : call("INFO", section).split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return null;
    }

    /** Deletes every key (between scenarios, so that one's leftovers never slow another). */
    void flush() {
        call("FLUSHALL");
    }

    /** One command on the probe's connection, for a scenario that reads a key (its commands count as the probe's). */
    Object command(String... args) {
        return raw(args);
    }

    private String call(String... args) {
        return String.valueOf(raw(args));
    }

    private Object raw(String... args) {
        try {
            Object reply = connection.call(args);
            if (reply instanceof io.leasehold.lock.testkit.redis.RedisErrorReply error) {
                throw new IllegalStateException("Redis refused " + String.join(" ", args) + ": " + error);
            }
            return reply;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (IOException ignored) {
            // the server goes away with the bench
        }
    }
}
