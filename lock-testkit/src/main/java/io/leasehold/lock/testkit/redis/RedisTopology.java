package io.leasehold.lock.testkit.redis;

import java.util.List;
import java.util.Map;

/**
 * A running Redis deployment a driver's test connects to: {@link StandaloneRedis},
 * {@link SentinelRedis} or {@link ClusterRedis}. It tells a test how to build its client
 * ({@link #uri()}, {@link #clientEndpoints()}), gives an admin path to the data
 * ({@link #masterForKey}, {@link #flushAll()}, {@link #scriptFlush()}), and freezes or restores the
 * whole deployment.
 *
 * <p>Implementations are threadsafe.
 *
 * @see RedisFixtures
 */
public interface RedisTopology extends AutoCloseable {

    /** The kinds of deployment. */
    enum Kind {
        STANDALONE,
        SENTINEL,
        CLUSTER
    }

    Kind kind();

    /**
     * A URI both Lettuce and Jedis understand: {@code redis://127.0.0.1:port} for a standalone server;
     * {@code redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3#mymaster} for Sentinel;
     * {@code redis://127.0.0.1:port} of one seed node for a cluster (all seeds are in
     * {@link #clientEndpoints()}).
     */
    String uri();

    /**
     * Where a client connects: the standalone server; the Sentinels (not the data nodes); or every
     * cluster master (as seeds).
     */
    List<RedisEndpoint> clientEndpoints();

    /** Every data server (masters and replicas; not Sentinels), in a stable order. */
    List<RedisNode> servers();

    /** The data servers that are masters right now (for Sentinel: the one the Sentinels name). */
    List<RedisNode> masters();

    /** The master that owns {@code key} (for a cluster: the owner of the key's slot). */
    RedisNode masterForKey(String key);

    /** Runs {@code FLUSHALL} on every master: every key is gone. */
    default void flushAll() {
        for (RedisNode master : masters()) {
            master.command("FLUSHALL");
        }
    }

    /** Runs {@code SCRIPT FLUSH} on every data server (replicas too, since they may be promoted). */
    default void scriptFlush() {
        for (RedisNode server : servers()) {
            server.command("SCRIPT", "FLUSH");
        }
    }

    /**
     * Freezes every process of the deployment (SIGSTOP; Sentinels too, so that they start no
     * failover), in one signal so that no node sees another as failed.
     *
     * @throws UnsupportedOperationException when {@link #unsupportedControls()} lists
     *     {@link RedisNode.Control#PAUSE}
     */
    void pauseAll();

    /** Ends {@link #pauseAll()} and waits until the deployment serves again. */
    void resumeAll();

    /**
     * Brings the deployment back to a serving state after a test's faults: resumes paused processes,
     * restarts killed ones, and waits until it serves (cluster state ok; Sentinels agree on a master).
     */
    void restoreAll();

    /** Controls some node of this deployment lacks, each with the reason; empty when all are supported. */
    Map<RedisNode.Control, String> unsupportedControls();

    /** Stops every process this topology started and deletes their directories. Idempotent. */
    @Override
    void close();
}
