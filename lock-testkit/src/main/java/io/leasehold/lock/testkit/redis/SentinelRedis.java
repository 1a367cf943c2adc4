package io.leasehold.lock.testkit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Sentinel-managed group of local {@code redis-server} processes: a master, one replica and three
 * Sentinels (quorum 2, {@code down-after-milliseconds} {@value #DOWN_AFTER_MILLIS},
 * {@code failover-timeout} {@value #FAILOVER_TIMEOUT_MILLIS}), so that killing the master promotes
 * the replica within a few seconds. Clients connect through the Sentinels: see {@link #uri()}.
 * Get one from {@link RedisFixtures#startSentinel()} or {@link RedisFixtures#sharedSentinel()}.
 *
 * <p>Which data server is master changes with failovers; {@link #master()} asks the Sentinels.
 *
 * <p>This class is threadsafe.
 */
public final class SentinelRedis implements RedisTopology {

    /**
     * The master name the Sentinels monitor. Not "leasehold": Jedis names its Sentinel listener
     * threads {@code <master>-SentinelListener-[<sentinel>]}, which must not look like the engine's
     * {@code leasehold-*} threads that tests count.
     */
    public static final String MASTER_NAME = "mymaster";

    // Long enough that a server stalled for a second on a loaded 2-core machine is not failed over by
    // mistake: at 1000 ms, one full build in five ended a failover test with the old master promoted
    // back, most likely by such a second, spurious failover.
    static final int DOWN_AFTER_MILLIS = 3000;
    static final int FAILOVER_TIMEOUT_MILLIS = 4000;
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    private final List<RedisServerProcess> servers;
    private final List<RedisServerProcess> sentinels;

    private SentinelRedis(List<RedisServerProcess> servers, List<RedisServerProcess> sentinels) {
        this.servers = List.copyOf(servers);
        this.sentinels = List.copyOf(sentinels);
    }

    /** Starts master, replica and three Sentinels from {@code binary}, and waits until the Sentinels know each other and the replica. */
    public static SentinelRedis start(RedisServerBinary binary) {
        List<RedisServerProcess> servers = new ArrayList<>();
        List<RedisServerProcess> sentinels = new ArrayList<>();
        try {
            RedisServerProcess master = RedisServerProcess.startServer(binary, "sentinel-master", List.of());
            servers.add(master);
            servers.add(RedisServerProcess.startServer(
                    binary, "sentinel-replica", List.of("replicaof 127.0.0.1 " + master.port())));
            SentinelRedis group = new SentinelRedis(servers, sentinels);
            group.awaitReplicasInSync(master.endpoint());
            for (int i = 1; i <= 3; i++) {
                RedisServerProcess sentinel = RedisServerProcess.startSentinel(
                        binary,
                        "sentinel-" + i,
                        List.of(
                                "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master.port() + " 2",
                                "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
                                "sentinel failover-timeout " + MASTER_NAME + " " + FAILOVER_TIMEOUT_MILLIS,
                                "sentinel parallel-syncs " + MASTER_NAME + " 1"));
                sentinels.add(sentinel);
                shortenTilt(sentinel);
            }
            group = new SentinelRedis(servers, sentinels);
            group.awaitSentinelsAgree();
            return group;
        } catch (RuntimeException | Error e) {
            sentinels.forEach(RedisServerProcess::close);
            servers.forEach(RedisServerProcess::close);
            throw e;
        }
    }

    /**
     * A Sentinel that was frozen longer than its tilt trigger (2 s) refuses to act for its tilt
     * period (30 s by default): good after a pause (no spurious failover), but a failover test run
     * after a pause test would wait half a minute. Redis 7's {@code SENTINEL DEBUG} shortens it; older
     * servers keep the default.
     */
    private static void shortenTilt(RedisServerProcess sentinel) {
        try {
            sentinel.command("SENTINEL", "DEBUG", "tilt-period", "5000");
        } catch (RedisErrorReply olderThanRedis7) {
            // Keep the default tilt period.
        }
    }

    /** The master name clients ask the Sentinels for ({@value #MASTER_NAME}). */
    public String masterName() {
        return MASTER_NAME;
    }

    /** The three Sentinels. */
    public List<RedisNode> sentinels() {
        return List.copyOf(sentinels);
    }

    /** Where the Sentinels listen, for building a Sentinel-aware client. */
    public List<RedisEndpoint> sentinelEndpoints() {
        return sentinels.stream().map(RedisNode::endpoint).collect(Collectors.toList());
    }

    /** The master's address as the first answering Sentinel reports it. */
    public RedisEndpoint currentMasterEndpoint() {
        RuntimeException last = null;
        for (RedisServerProcess sentinel : sentinels) {
            if (!sentinel.isRunning() || sentinel.isPaused()) {
                continue;
            }
            try {
                return masterAddressFrom(sentinel);
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw new RedisFixtureException("no Sentinel of " + this + " could name the master", last);
    }

    /** The data server that is master now, according to the Sentinels. */
    public RedisNode master() {
        return serverAt(currentMasterEndpoint());
    }

    /** The data servers that are not {@link #master()}. */
    public List<RedisNode> replicas() {
        RedisNode master = master();
        return servers.stream().filter(server -> server != master).collect(Collectors.toList());
    }

    /**
     * Waits until every running Sentinel names a master other than {@code previous} and that
     * server reports the master role; returns its address.
     */
    public RedisEndpoint awaitFailover(RedisEndpoint previous, Duration timeout) {
        Await.until(
                "the Sentinels to promote a new master instead of " + previous,
                timeout,
                () -> {
                    List<RedisEndpoint> named = namedMasters();
                    return !named.isEmpty()
                            && named.stream().allMatch(endpoint -> !endpoint.equals(previous))
                            && named.stream().distinct().count() == 1
                            && isMaster(serverAt(named.get(0)));
                },
                () -> "Sentinels name " + safeNamedMasters());
        return currentMasterEndpoint();
    }

    @Override
    public Kind kind() {
        return Kind.SENTINEL;
    }

    /** {@code redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3#mymaster}, as Lettuce and Jedis read it. */
    @Override
    public String uri() {
        return "redis-sentinel://"
                + sentinelEndpoints().stream().map(RedisEndpoint::toString).collect(Collectors.joining(",")) + "#"
                + MASTER_NAME;
    }

    /** The Sentinels' endpoints. */
    @Override
    public List<RedisEndpoint> clientEndpoints() {
        return sentinelEndpoints();
    }

    /** The master and the replica as started (their roles may have swapped since). */
    @Override
    public List<RedisNode> servers() {
        return List.copyOf(servers);
    }

    @Override
    public List<RedisNode> masters() {
        return List.of(master());
    }

    @Override
    public RedisNode masterForKey(String key) {
        return master();
    }

    /** Freezes the Sentinels first (so none sees the data servers vanish), then the data servers, in one signal. */
    @Override
    public void pauseAll() {
        List<RedisServerProcess> all = new ArrayList<>(sentinels);
        all.addAll(servers);
        RedisServerProcess.pauseAll(
                all.stream().filter(RedisServerProcess::isRunning).collect(Collectors.toList()));
    }

    /** Resumes the data servers, waits until they answer, then resumes the Sentinels. */
    @Override
    public void resumeAll() {
        resumeAndAwait(servers);
        resumeAndAwait(sentinels);
    }

    private static void resumeAndAwait(List<RedisServerProcess> processes) {
        RedisServerProcess.resumeAll(processes);
        for (RedisServerProcess process : processes) {
            if (process.isRunning()) {
                Await.until(
                        process + " to answer PING after resume",
                        SETTLE_TIMEOUT,
                        () -> process.ping(PROBE_TIMEOUT),
                        process::logTail);
            }
        }
    }

    /**
     * Resumes paused processes, restarts killed ones (data servers first), and waits until all
     * Sentinels name the same master and every other data server replicates from it.
     */
    @Override
    public void restoreAll() {
        resumeAll();
        List<RedisServerProcess> restarted = new ArrayList<>();
        for (RedisServerProcess server : servers) {
            if (!server.isRunning()) {
                server.restart();
                restarted.add(server);
            }
        }
        for (RedisServerProcess sentinel : sentinels) {
            if (!sentinel.isRunning()) {
                sentinel.restart();
                shortenTilt(sentinel);
            }
        }
        awaitSentinelsAgree();
        RedisEndpoint master = currentMasterEndpoint();
        for (RedisServerProcess server : restarted) {
            if (!server.endpoint().equals(master)) {
                // A restarted old master comes back as a master; Sentinel would demote it only after
                // about 8 s of it reporting the wrong role. Demote it now, as Sentinel would.
                server.command("REPLICAOF", master.host(), Integer.toString(master.port()));
            }
        }
        awaitReplicasInSync(master);
    }

    @Override
    public Map<RedisNode.Control, String> unsupportedControls() {
        return Map.of();
    }

    @Override
    public void close() {
        sentinels.forEach(RedisServerProcess::close);
        servers.forEach(RedisServerProcess::close);
    }

    @Override
    public String toString() {
        return "Sentinel group " + MASTER_NAME + " (data servers "
                + servers.stream().map(s -> s.endpoint().toString()).collect(Collectors.joining(", ")) + "; sentinels "
                + sentinelEndpoints() + ")";
    }

    private void awaitSentinelsAgree() {
        Await.until(
                "the Sentinels of " + this + " to agree on a master and know each other and the replica",
                SETTLE_TIMEOUT,
                () -> {
                    List<RedisEndpoint> named = namedMasters();
                    if (named.size() != sentinels.size()
                            || named.stream().distinct().count() != 1
                            || !isMaster(serverAt(named.get(0)))) {
                        return false;
                    }
                    for (RedisServerProcess sentinel : sentinels) {
                        Map<String, String> state =
                                Replies.fieldMap(sentinel.command(PROBE_TIMEOUT, "SENTINEL", "MASTER", MASTER_NAME));
                        if (!"master".equals(state.get("flags"))
                                || !String.valueOf(servers.size() - 1).equals(state.get("num-slaves"))
                                || !String.valueOf(sentinels.size() - 1).equals(state.get("num-other-sentinels"))) {
                            return false;
                        }
                    }
                    return true;
                },
                this::sentinelStates);
    }

    private void awaitReplicasInSync(RedisEndpoint master) {
        for (RedisServerProcess server : servers) {
            if (server.endpoint().equals(master)) {
                continue;
            }
            Await.until(
                    server + " to replicate from " + master,
                    SETTLE_TIMEOUT,
                    () -> {
                        Map<String, String> info = Replies.info(server.command(PROBE_TIMEOUT, "INFO", "replication"));
                        return "slave".equals(info.get("role"))
                                && "up".equals(info.get("master_link_status"))
                                && String.valueOf(master.port()).equals(info.get("master_port"));
                    },
                    server::logTail);
        }
    }

    private List<RedisEndpoint> namedMasters() {
        List<RedisEndpoint> named = new ArrayList<>();
        for (RedisServerProcess sentinel : sentinels) {
            if (sentinel.isRunning() && !sentinel.isPaused()) {
                named.add(masterAddressFrom(sentinel));
            }
        }
        return named;
    }

    private String safeNamedMasters() {
        try {
            return namedMasters().toString();
        } catch (RuntimeException e) {
            return "(unknown: " + e.getMessage() + ")";
        }
    }

    private String sentinelStates() {
        StringBuilder states = new StringBuilder();
        for (RedisServerProcess sentinel : sentinels) {
            try {
                states.append('\n')
                        .append(sentinel)
                        .append(": ")
                        .append(sentinel.command(PROBE_TIMEOUT, "SENTINEL", "MASTER", MASTER_NAME));
            } catch (RuntimeException e) {
                states.append('\n').append(sentinel).append(": ").append(e.getMessage());
            }
        }
        return states.toString();
    }

    private static RedisEndpoint masterAddressFrom(RedisServerProcess sentinel) {
        Object reply = sentinel.command(PROBE_TIMEOUT, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
        if (!(reply instanceof List<?> address) || address.size() != 2) {
            throw new RedisFixtureException(sentinel + " does not know master " + MASTER_NAME + ": " + reply);
        }
        return new RedisEndpoint(String.valueOf(address.get(0)), Integer.parseInt(String.valueOf(address.get(1))));
    }

    private RedisServerProcess serverAt(RedisEndpoint endpoint) {
        for (RedisServerProcess server : servers) {
            if (server.port() == endpoint.port()) {
                return server;
            }
        }
        throw new RedisFixtureException("the Sentinels name " + endpoint + ", which is none of " + this);
    }

    private static boolean isMaster(RedisNode server) {
        Object role = server.command(PROBE_TIMEOUT, "ROLE");
        return role instanceof List<?> fields && !fields.isEmpty() && "master".equals(fields.get(0));
    }
}
