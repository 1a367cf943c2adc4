package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.FaultWindow;
import io.leasehold.lock.history.HistoryClock;
import io.leasehold.lock.history.HistoryWriter;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.RedisTopology;
import io.leasehold.lock.testkit.redis.SentinelRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a {@link Scenario} sees of a running run: the workers, their proxies, the lock server, the
 * nemesis history where faults are declared; and where it records what it found.
 *
 * <p>Used by the run's one orchestrating thread.
 */
final class RunContext {

    /**
     * Slack for real-time bounds on a shared, loaded two-core machine: added to every deadline a scenario
     * checks. 1.5 s: with three runs at a time (the default, see SuiteSettings) a killed holder's lock was
     * once taken 1,176 ms past its lease; each demand stays far below what a stuck lock would show (a
     * whole lease or more).
     */
    static final Duration MARGIN = Duration.ofMillis(1500);

    private static final String KEY_PREFIX = "leasehold:";

    private final List<WorkerProcess> workers;
    private final Map<WorkerProcess, List<FaultProxy>> proxies;
    private final RedisTopology topology;
    private final List<RedisNode> quorumMembers;
    private final HistoryWriter nemesis;
    private final List<String> failures = new ArrayList<>();
    private final List<String> figures = new ArrayList<>();
    private HistoryFacts facts;

    RunContext(
            List<WorkerProcess> workers,
            Map<WorkerProcess, List<FaultProxy>> proxies,
            RedisTopology topology,
            List<RedisNode> quorumMembers,
            HistoryWriter nemesis) {
        this.workers = workers;
        this.proxies = proxies;
        this.topology = topology;
        this.quorumMembers = quorumMembers;
        this.nemesis = nemesis;
    }

    List<WorkerProcess> workers() {
        return workers;
    }

    /** The worker's one fault proxy (to the lock server, or to a quorum's first member). */
    FaultProxy proxyOf(WorkerProcess worker) {
        return proxiesOf(worker).get(0);
    }

    /** The worker's fault proxies: one to the lock server, or one per quorum member in member order. */
    List<FaultProxy> proxiesOf(WorkerProcess worker) {
        List<FaultProxy> proxy = proxies.get(worker);
        if (proxy == null) {
            throw new IllegalStateException(worker.name() + " has no fault proxy: the scenario must be proxied()");
        }
        return proxy;
    }

    List<FaultProxy> proxies() {
        return proxies.values().stream().flatMap(List::stream).toList();
    }

    /** The members' servers of a {@link Scenario.Topology#QUORUM} run, in member order (empty otherwise). */
    List<RedisNode> quorumMembers() {
        return quorumMembers;
    }

    /** The one lock server of a standalone scenario. */
    RedisNode lockServer() {
        return topology.servers().get(0);
    }

    SentinelRedis sentinel() {
        return (SentinelRedis) topology;
    }

    static long now() {
        return HistoryClock.nowMicros();
    }

    static void sleep(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis());
    }

    /** Declares a fault in the nemesis history (the checker reads it). */
    void declare(String kind, FaultEffect effect, String target, long start, long end) {
        nemesis.write(new FaultWindow("nemesis", kind, effect, target, start, end));
    }

    /**
     * Waits for a worker to report that it is inside a section (after its read, before its write) and
     * returns it, skipping lines printed before this call.
     */
    Holder awaitHolder(Duration timeout) throws InterruptedException {
        return awaitHolder(workers, timeout);
    }

    /** The worker a {@link Scenario#targetHold()} scenario aims at: the first. */
    WorkerProcess target() {
        return workers.get(0);
    }

    /** {@link #awaitHolder(Duration)} among {@code workers} only. */
    Holder awaitHolder(List<WorkerProcess> workers, Duration timeout) throws InterruptedException {
        int[] seen = new int[workers.size()];
        for (int i = 0; i < workers.size(); i++) {
            seen[i] = workers.get(i).lineCount();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < workers.size(); i++) {
                WorkerProcess worker = workers.get(i);
                int index = worker.awaitLine(seen[i], line -> line.startsWith("IN "), Duration.ZERO);
                if (index >= 0) {
                    String[] fields = worker.line(index).split(" ");
                    return new Holder(worker, fields[1], Long.parseLong(fields[2]), now());
                }
                seen[i] = Math.max(seen[i], worker.lineCount());
            }
            Thread.sleep(2);
        }
        throw new IllegalStateException("no worker entered a section within " + timeout);
    }

    /**
     * A line {@code <kind> <lock> <token> <waiters>} of a worker ({@code IN} or {@code RELEASING}).
     *
     * @param worker who printed it
     * @param lock the lock
     * @param token the lease's token
     * @param waiters how many other threads of that worker waited for the lock then
     * @param seenAt when the runner read it, in history-clock microseconds
     */
    record WorkerLine(WorkerProcess worker, String lock, long token, int waiters, long seenAt) {}

    /**
     * Waits for {@code worker} to print a line starting with {@code kind} (e.g. {@code RELEASING}) with
     * at least {@code minWaiters} local waiters, skipping lines printed before this call.
     */
    WorkerLine awaitLine(WorkerProcess worker, String kind, int minWaiters, Duration timeout)
            throws InterruptedException {
        int from = worker.lineCount();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Duration left = Duration.ofNanos(deadline - System.nanoTime());
            if (left.isNegative()) {
                throw new IllegalStateException(worker.name() + " printed no " + kind + " line with " + minWaiters
                        + "+ local waiters within " + timeout);
            }
            int index = worker.awaitLine(
                    from,
                    line -> line.startsWith(kind + " ")
                            && line.split(" ").length >= 4
                            && Integer.parseInt(line.split(" ")[3]) >= minWaiters,
                    left);
            if (index >= 0) {
                String[] fields = worker.line(index).split(" ");
                return new WorkerLine(worker, fields[1], Long.parseLong(fields[2]), Integer.parseInt(fields[3]), now());
            }
            if (!worker.isAlive()) {
                throw new IllegalStateException(worker.name() + " ended before printing a " + kind + " line");
            }
        }
    }

    /**
     * The keys of the locks present on the lock server now, each with its PTTL in ms: the locks, and
     * a fair lock's wait queue and waiter leases (the fencing counters stay by design).
     */
    Map<String, Long> lockKeys() {
        Map<String, Long> keys = new java.util.TreeMap<>();
        List<RedisNode> servers = lockServers();
        for (int i = 0; i < servers.size(); i++) {
            String where = servers.size() > 1 ? "member " + i + ": " : "";
            for (String lock : SuiteSettings.LOCKS) {
                String lockKey = KEY_PREFIX + "{" + lock + "}";
                for (String suffix : List.of("", ":queue", ":waiters", ":quorum-queue", ":quorum-waiters")) {
                    Object pttl = servers.get(i).command(Duration.ofSeconds(2), "PTTL", lockKey + suffix);
                    long ms = Long.parseLong(String.valueOf(pttl));
                    if (ms != -2) {
                        keys.put(where + lockKey + suffix, ms);
                    }
                }
            }
        }
        return keys;
    }

    /**
     * How many places each lock's fair wait queue holds now (ZCARD of its {@code :queue}; on a quorum, of
     * the first member's {@code :quorum-queue}).
     */
    Map<String, Long> queuedPlaces() {
        Map<String, Long> places = new java.util.TreeMap<>();
        String queue = quorumMembers().isEmpty() ? ":queue" : ":quorum-queue";
        for (String lock : SuiteSettings.LOCKS) {
            Object count =
                    lockServers().get(0).command(Duration.ofSeconds(2), "ZCARD", KEY_PREFIX + "{" + lock + "}" + queue);
            places.put(lock, Long.parseLong(String.valueOf(count)));
        }
        return places;
    }

    /** The servers that hold the locks: a quorum's members, or the one lock server. */
    private List<RedisNode> lockServers() {
        List<RedisNode> members = quorumMembers();
        return members.isEmpty() ? List.of(lockServer()) : members;
    }

    /**
     * Waits until {@code lock} is no longer held with {@code token} on the lock server (the key gone or
     * holding another token) and returns when, in history-clock microseconds; {@code null} on timeout.
     */
    Long awaitLockFree(String lock, long token, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String key = KEY_PREFIX + "{" + lock + "}";
        while (System.nanoTime() < deadline) {
            Object value = lockServer().command(Duration.ofSeconds(2), "GET", key);
            if (value == null
                    || !Long.toString(token).equals(String.valueOf(value).split(":")[1])) {
                return now();
            }
            Thread.sleep(5);
        }
        return null;
    }

    /** Records a failed demand of the scenario unless {@code ok}. */
    void expect(boolean ok, String demand) {
        if (!ok) {
            failures.add(demand);
        }
    }

    /** Records a figure for the results table's "scenario check" column. */
    void figure(String figure) {
        figures.add(figure);
    }

    List<String> failures() {
        return failures;
    }

    List<String> figures() {
        return figures;
    }

    void facts(HistoryFacts facts) {
        this.facts = facts;
    }

    /** The run's history, read after the workers stopped (for {@link Scenario#judge}). */
    HistoryFacts facts() {
        return facts;
    }

    static String millis(long micros) {
        return (micros / 1000) + " ms";
    }
}
