package io.leasehold.lock.safety;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one {@link SafetyWorker} process is told on its command line, as {@code --name value} pairs.
 * {@link #toArgs()} writes them, {@link #parse(String[])} reads them back, so that the runner and the
 * worker cannot disagree on the spelling.
 *
 * @param process the worker's name in the history (e.g. {@code w1})
 * @param driver which Redis client the worker locks with
 * @param lockUri where the lock server is: {@code redis://host:port} (possibly a fault proxy) or a
 *     {@code redis-sentinel://...#master} URI
 * @param resourceHost the fenced resource's server (one that no fault touches)
 * @param resourcePort its port
 * @param resourcePrefix the resources are named {@code <prefix>:<lock>}, one per lock
 * @param locks the lock names to contend for
 * @param lease the lease time (auto-renewed at a third of it)
 * @param acquireWait how long one acquire may wait
 * @param minHold the shortest pause between the read and the write of a section
 * @param maxHold the longest one
 * @param history the worker's history file
 * @param threads how many threads of the worker contend, each in turn for the locks (more than one: a
 *     lease's release may hand its lock to a local waiter of the same client, a handoff)
 * @param fair whether the worker takes {@code fairLock(name)} instead of {@code lock(name)}
 */
record WorkerArgs(
        String process,
        Driver driver,
        String lockUri,
        String resourceHost,
        int resourcePort,
        String resourcePrefix,
        List<String> locks,
        Duration lease,
        Duration acquireWait,
        Duration minHold,
        Duration maxHold,
        Path history,
        int threads,
        boolean fair) {

    List<String> toArgs() {
        List<String> args = new ArrayList<>();
        add(args, "process", process);
        add(args, "driver", driver.name());
        add(args, "lock-uri", lockUri);
        add(args, "resource", resourceHost + ":" + resourcePort);
        add(args, "resource-prefix", resourcePrefix);
        add(args, "locks", String.join(",", locks));
        add(args, "lease", lease.toString());
        add(args, "wait", acquireWait.toString());
        add(args, "hold", minHold + ".." + maxHold);
        add(args, "history", history.toString());
        add(args, "threads", Integer.toString(threads));
        add(args, "fair", Boolean.toString(fair));
        return args;
    }

    static WorkerArgs parse(String[] args) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, but got '" + args[i] + "'");
            }
            values.put(args[i].substring(2), args[i + 1]);
        }
        String[] resource = required(values, "resource").split(":");
        String[] hold = required(values, "hold").split("\\.\\.");
        return new WorkerArgs(
                required(values, "process"),
                Driver.valueOf(required(values, "driver")),
                required(values, "lock-uri"),
                resource[0],
                Integer.parseInt(resource[1]),
                required(values, "resource-prefix"),
                List.of(required(values, "locks").split(",")),
                Duration.parse(required(values, "lease")),
                Duration.parse(required(values, "wait")),
                Duration.parse(hold[0]),
                Duration.parse(hold[1]),
                Path.of(required(values, "history")),
                Integer.parseInt(values.getOrDefault("threads", "1")),
                Boolean.parseBoolean(values.getOrDefault("fair", "false")));
    }

    String resourceName(String lock) {
        return resourcePrefix + ":" + lock;
    }

    private static void add(List<String> args, String name, String value) {
        args.add("--" + name);
        args.add(value);
    }

    private static String required(Map<String, String> values, String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }
}
