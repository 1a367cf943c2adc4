package io.leasehold.lock.testkit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of local {@code redis-server} masters (three by default, no replicas), each owning
 * an even, contiguous share of the 16384 slots, created with {@code CLUSTER ADDSLOTSRANGE} and
 * {@code CLUSTER MEET} (no {@code redis-cli} needed). Startup waits until every node reports
 * {@code cluster_state:ok}. Clients use {@link #clientEndpoints()} as seeds. Get one from
 * {@link RedisFixtures#startCluster()} or {@link RedisFixtures#sharedCluster()}.
 *
 * <p>The slot assignment never changes (there are no replicas to fail over to), so
 * {@link #nodeForSlot} answers from it even while nodes are down.
 *
 * <p>This class is threadsafe.
 */
public final class ClusterRedis implements RedisTopology {

    /** How many masters {@link #start(RedisServerBinary)} creates. */
    public static final int DEFAULT_MASTERS = 3;

    private static final int NODE_TIMEOUT_MILLIS = 5000;
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    private final List<RedisServerProcess> nodes;

    private ClusterRedis(List<RedisServerProcess> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /** Starts a {@value #DEFAULT_MASTERS}-master cluster from {@code binary}. */
    public static ClusterRedis start(RedisServerBinary binary) {
        return start(binary, DEFAULT_MASTERS);
    }

    /** Starts a cluster of {@code masters} masters from {@code binary}. */
    public static ClusterRedis start(RedisServerBinary binary, int masters) {
        if (masters < 1) {
            throw new IllegalArgumentException("masters must be at least 1, but was " + masters);
        }
        List<RedisServerProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters; i++) {
                nodes.add(RedisServerProcess.startClusterNode(
                        binary, "cluster-" + (i + 1), List.of("cluster-node-timeout " + NODE_TIMEOUT_MILLIS)));
            }
            ClusterRedis cluster = new ClusterRedis(nodes);
            cluster.create();
            return cluster;
        } catch (RuntimeException | Error e) {
            nodes.forEach(RedisServerProcess::close);
            throw e;
        }
    }

    private void create() {
        for (int i = 0; i < nodes.size(); i++) {
            RedisServerProcess node = nodes.get(i);
            // Distinct config epochs up front, as redis-cli does, so that no epoch collision has to be resolved.
            node.command("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            addSlots(node, firstSlot(i), lastSlot(i));
        }
        for (RedisServerProcess other : nodes.subList(1, nodes.size())) {
            nodes.get(0).command("CLUSTER", "MEET", "127.0.0.1", Integer.toString(other.port()));
        }
        awaitClusterOk();
    }

    private static void addSlots(RedisServerProcess node, int first, int last) {
        try {
            node.command("CLUSTER", "ADDSLOTSRANGE", Integer.toString(first), Integer.toString(last));
        } catch (RedisErrorReply beforeRedis7) {
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = first; slot <= last; slot++) {
                command.add(Integer.toString(slot));
            }
            node.command(command.toArray(String[]::new));
        }
    }

    private int firstSlot(int index) {
        return index * ClusterSlots.SLOTS / nodes.size();
    }

    private int lastSlot(int index) {
        return (index + 1) * ClusterSlots.SLOTS / nodes.size() - 1;
    }

    /** Every node, in slot order (the first owns slot 0). */
    public List<RedisNode> nodes() {
        return List.copyOf(nodes);
    }

    /** The node owning {@code slot}. */
    public RedisNode nodeForSlot(int slot) {
        if (slot < 0 || slot >= ClusterSlots.SLOTS) {
            throw new IllegalArgumentException("slot must be between 0 and 16383, but was " + slot);
        }
        for (int i = 0; i < nodes.size(); i++) {
            if (slot <= lastSlot(i)) {
                return nodes.get(i);
            }
        }
        throw new IllegalStateException("no node owns slot " + slot);
    }

    /** Where every node listens: the seeds for a cluster client. */
    @Override
    public List<RedisEndpoint> clientEndpoints() {
        return nodes.stream().map(RedisNode::endpoint).collect(Collectors.toList());
    }

    @Override
    public Kind kind() {
        return Kind.CLUSTER;
    }

    /** {@code redis://127.0.0.1:port} of the first node; a cluster client discovers the rest from it. */
    @Override
    public String uri() {
        return nodes.get(0).endpoint().uri();
    }

    @Override
    public List<RedisNode> servers() {
        return nodes();
    }

    @Override
    public List<RedisNode> masters() {
        return nodes();
    }

    @Override
    public RedisNode masterForKey(String key) {
        return nodeForSlot(ClusterSlots.slot(key));
    }

    /** Freezes every node with one signal, so that none of them sees another as failed. */
    @Override
    public void pauseAll() {
        RedisServerProcess.pauseAll(
                nodes.stream().filter(RedisServerProcess::isRunning).collect(Collectors.toList()));
    }

    /** Resumes every node with one signal and waits until each reports {@code cluster_state:ok}. */
    @Override
    public void resumeAll() {
        RedisServerProcess.resumeAll(nodes);
        awaitClusterOk();
    }

    /** Resumes paused nodes, restarts killed ones (they keep their identity in {@code nodes.conf}), and waits for {@code cluster_state:ok}. */
    @Override
    public void restoreAll() {
        RedisServerProcess.resumeAll(nodes);
        for (RedisServerProcess node : nodes) {
            if (!node.isRunning()) {
                node.restart();
            }
        }
        awaitClusterOk();
    }

    @Override
    public Map<RedisNode.Control, String> unsupportedControls() {
        return Map.of();
    }

    @Override
    public void close() {
        nodes.forEach(RedisServerProcess::close);
    }

    @Override
    public String toString() {
        return "Redis Cluster of " + clientEndpoints();
    }

    private void awaitClusterOk() {
        for (RedisServerProcess node : nodes) {
            Await.until(
                    node + " to report cluster_state:ok with all slots and " + nodes.size() + " known nodes",
                    SETTLE_TIMEOUT,
                    () -> {
                        Map<String, String> info = Replies.info(node.command(PROBE_TIMEOUT, "CLUSTER", "INFO"));
                        return "ok".equals(info.get("cluster_state"))
                                && String.valueOf(ClusterSlots.SLOTS).equals(info.get("cluster_slots_ok"))
                                && String.valueOf(nodes.size()).equals(info.get("cluster_known_nodes"));
                    },
                    () -> clusterInfo(node));
        }
    }

    private static String clusterInfo(RedisServerProcess node) {
        try {
            return "CLUSTER INFO: " + node.command(PROBE_TIMEOUT, "CLUSTER", "INFO") + "\n" + node.logTail();
        } catch (RuntimeException e) {
            return e.getMessage() + "\n" + node.logTail();
        }
    }
}
