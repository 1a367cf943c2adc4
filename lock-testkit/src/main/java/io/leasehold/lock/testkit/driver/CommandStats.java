package io.leasehold.lock.testkit.driver;

import io.leasehold.lock.testkit.redis.RedisNode;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Calls per command as Redis counts them ({@code INFO commandstats}), and the difference between two
 * readings: how a load test measures the traffic a run caused, on the server's side, whatever the
 * driver. Commands a script runs ({@code redis.call}) are counted too, each under its own name.
 */
final class CommandStats {

    /** The commands a client sends to run a script; everything else a script-only client sends is pub/sub. */
    static final Set<String> SCRIPT_CALLS = Set.of("evalsha", "eval");

    private final Map<String, Long> calls;

    private CommandStats(Map<String, Long> calls) {
        this.calls = calls;
    }

    /** The server's counts now. */
    static CommandStats read(RedisNode server) {
        Map<String, Long> calls = new TreeMap<>();
        for (String line :
                String.valueOf(server.command("INFO", "commandstats")).split("\r?\n")) {
            // cmdstat_evalsha:calls=12,usec=345,usec_per_call=28.75,rejected_calls=0,failed_calls=0
            if (line.startsWith("cmdstat_")) {
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                String fields = line.substring(line.indexOf(':') + 1);
                for (String field : fields.split(",")) {
                    if (field.startsWith("calls=")) {
                        calls.put(command, Long.parseLong(field.substring("calls=".length())));
                    }
                }
            }
        }
        return new CommandStats(calls);
    }

    /** Calls made since {@code earlier}, per command (the {@code INFO} calls of the readings left out). */
    CommandStats since(CommandStats earlier) {
        Map<String, Long> delta = new TreeMap<>();
        calls.forEach((command, count) -> {
            long made = count - earlier.calls.getOrDefault(command, 0L);
            if (made > 0 && !command.equals("info")) {
                delta.put(command, made);
            }
        });
        return new CommandStats(delta);
    }

    /** Calls of {@code command} (lower case, e.g. "evalsha"). */
    long of(String command) {
        return calls.getOrDefault(command, 0L);
    }

    /** Script calls: {@code EVALSHA} and {@code EVAL}. */
    long scriptCalls() {
        return SCRIPT_CALLS.stream().mapToLong(this::of).sum();
    }

    /** Calls of every command, those scripts ran included. */
    long total() {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public String toString() {
        return calls.toString();
    }
}
