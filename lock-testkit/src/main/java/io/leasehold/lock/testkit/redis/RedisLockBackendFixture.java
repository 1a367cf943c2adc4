package io.leasehold.lock.testkit.redis;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.FaultInjectingBackend;
import io.leasehold.lock.testkit.LockBackendFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A {@link LockBackendFixture} over a running {@link RedisTopology}, for running the conformance
 * suite against a real driver. The driver's test supplies the backend factory, which builds a
 * backend from the topology's endpoints, e.g. for Lettuce:
 *
 * <pre>{@code
 * RedisLockBackendFixture.sharedStandalone("lettuce-standalone", redis -> {
 *     RedisClient client = RedisClient.create(redis.uri());
 *     return OwningLockBackend.of(LettuceLockBackend.create(client), client::shutdown);
 * });
 * }</pre>
 *
 * <p>Every backend from {@link #newBackend()} is wrapped in a {@link FaultInjectingBackend}; all of
 * them share one set of switches, so {@link #loseNextReply()} drops exactly one reply across all
 * backends, and {@link #setLatency} and {@link #setSubscribeLatency} delay them all. Key faults go
 * through an admin connection to the master that owns the key ({@code DEL}; {@code PEXPIRE key 1}
 * and a wait until it is gone; {@code SET key value}; a script that runs {@code DEL} and
 * {@code HSET} in one step).
 * {@link #makeUnavailable()} and {@link #freeze()} freeze every process of the topology with SIGSTOP
 * (unsupported, with the reason, for an external {@code REDIS_URL} server).
 *
 * <p>A fixture that {@link #owning owns} its topology stops it on {@link #close()}; one that
 * {@link #sharing shares} it (the {@code shared*} factories share the per-JVM topologies of
 * {@link RedisFixtures}) restores and flushes it instead, at creation and at close. Sharing assumes
 * that the test classes using one topology run one after another (Surefire's default), since each
 * flushes it.
 *
 * <p>This class is threadsafe.
 *
 * @param <T> the topology type, so that a factory can use e.g. {@link ClusterRedis#clientEndpoints()}
 */
public final class RedisLockBackendFixture<T extends RedisTopology> implements LockBackendFixture {

    private static final Duration EXPIRY_WAIT = Duration.ofSeconds(5);
    /** The field and value of the hash {@link #writeForeignKey(String)} writes. */
    private static final String FOREIGN_FIELD = "written-by";

    private static final String FOREIGN_VALUE = "another application";

    private final String name;
    private final T topology;
    private final boolean ownsTopology;
    private final Function<? super T, ? extends LockBackend> backendFactory;
    private final FaultInjectingBackend.Faults faults = new FaultInjectingBackend.Faults();
    private final List<FaultInjectingBackend> backends = new ArrayList<>(); // guarded by this
    private boolean closed; // guarded by this

    private RedisLockBackendFixture(
            String name, T topology, boolean ownsTopology, Function<? super T, ? extends LockBackend> backendFactory) {
        this.name = Objects.requireNonNull(name, "name");
        this.topology = Objects.requireNonNull(topology, "topology");
        this.ownsTopology = ownsTopology;
        this.backendFactory = Objects.requireNonNull(backendFactory, "backendFactory");
    }

    /** A fixture that stops {@code topology} when closed. */
    public static <T extends RedisTopology> RedisLockBackendFixture<T> owning(
            String name, T topology, Function<? super T, ? extends LockBackend> backendFactory) {
        return new RedisLockBackendFixture<>(name, topology, true, backendFactory);
    }

    /** A fixture over a topology others use too: it restores and flushes it now and when closed, never stops it. */
    public static <T extends RedisTopology> RedisLockBackendFixture<T> sharing(
            String name, T topology, Function<? super T, ? extends LockBackend> backendFactory) {
        RedisLockBackendFixture<T> fixture = new RedisLockBackendFixture<>(name, topology, false, backendFactory);
        fixture.cleanTopology();
        return fixture;
    }

    /** A fixture over {@link RedisFixtures#sharedStandalone()}. */
    public static RedisLockBackendFixture<StandaloneRedis> sharedStandalone(
            String name, Function<? super StandaloneRedis, ? extends LockBackend> backendFactory) {
        return sharing(name, RedisFixtures.sharedStandalone(), backendFactory);
    }

    /** A fixture over {@link RedisFixtures#sharedSentinel()}. */
    public static RedisLockBackendFixture<SentinelRedis> sharedSentinel(
            String name, Function<? super SentinelRedis, ? extends LockBackend> backendFactory) {
        return sharing(name, RedisFixtures.sharedSentinel(), backendFactory);
    }

    /** A fixture over {@link RedisFixtures#sharedCluster()}. */
    public static RedisLockBackendFixture<ClusterRedis> sharedCluster(
            String name, Function<? super ClusterRedis, ? extends LockBackend> backendFactory) {
        return sharing(name, RedisFixtures.sharedCluster(), backendFactory);
    }

    /** The topology, e.g. to kill a node or run {@code SCRIPT FLUSH} in a driver-specific test. */
    public T topology() {
        return topology;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockBackend newBackend() {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("fixture " + name + " is closed; cannot create a backend");
            }
        }
        LockBackend created = Objects.requireNonNull(
                backendFactory.apply(topology), () -> "the backend factory of fixture " + name + " returned null");
        FaultInjectingBackend backend = new FaultInjectingBackend(created, faults);
        synchronized (this) {
            if (!closed) {
                backends.add(backend);
                return backend;
            }
        }
        backend.close();
        throw new IllegalStateException("fixture " + name + " was closed while a backend was created");
    }

    @Override
    public void deleteKey(String key) {
        topology.masterForKey(key).command("DEL", key);
    }

    @Override
    public void expireNow(String key) {
        RedisNode master = topology.masterForKey(key);
        if (Long.valueOf(1L).equals(master.command("PEXPIRE", key, "1"))) {
            // EXISTS expires the key lazily once its millisecond has passed; then every reader sees it gone.
            Await.until(
                    "key '" + key + "' to expire on " + master.endpoint(),
                    EXPIRY_WAIT,
                    () -> Long.valueOf(0L).equals(master.command("EXISTS", key)),
                    () -> "it still exists");
        }
    }

    @Override
    public long pttl(String key) {
        return (Long) topology.masterForKey(key).command("PTTL", key);
    }

    @Override
    public void writeKey(String key, String value) {
        topology.masterForKey(key).command("SET", key, value);
    }

    @Override
    public void writeForeignKey(String key) {
        // One script, so that no script of the code under test runs between the DEL and the HSET.
        topology.masterForKey(key)
                .command(
                        "EVAL",
                        "redis.call('DEL', KEYS[1]) return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])",
                        "1",
                        key,
                        FOREIGN_FIELD,
                        FOREIGN_VALUE);
    }

    @Override
    public void writeSortedSetMember(String key, double score, String member) {
        String redisScore = Double.isInfinite(score) ? (score > 0 ? "+inf" : "-inf") : Double.toString(score);
        topology.masterForKey(key).command("ZADD", key, redisScore, member);
    }

    @Override
    public void flushAll() {
        topology.flushAll();
    }

    @Override
    public void makeUnavailable() {
        String reason = topology.unsupportedControls().get(RedisNode.Control.PAUSE);
        if (reason != null) {
            throw new UnsupportedOperationException(reason);
        }
        topology.pauseAll();
    }

    @Override
    public void makeAvailable() {
        if (!topology.unsupportedControls().containsKey(RedisNode.Control.PAUSE)) {
            topology.resumeAll();
        }
    }

    /** {@link #makeUnavailable()}: a real server frozen with SIGSTOP answers nothing until resumed. */
    @Override
    public void freeze() {
        makeUnavailable();
    }

    @Override
    public void thaw() {
        makeAvailable();
    }

    @Override
    public void loseNextReply() {
        faults.loseNextReply();
    }

    @Override
    public void setLatency(Duration latency) {
        faults.setLatency(latency);
    }

    @Override
    public void setSubscribeLatency(Duration latency) {
        faults.setSubscribeLatency(latency);
    }

    /** Clears reply loss and both latencies, resumes paused processes and restarts killed ones. */
    @Override
    public void resetFaults() {
        faults.reset();
        topology.restoreAll();
    }

    @Override
    public Map<Fault, String> unsupportedFaults() {
        String reason = topology.unsupportedControls().get(RedisNode.Control.PAUSE);
        return reason == null ? Map.of() : Map.of(Fault.UNAVAILABLE, reason, Fault.FREEZE, reason);
    }

    /**
     * Closes every backend this fixture made, then stops the topology if this fixture owns it, or
     * restores and flushes it if it is shared. Idempotent.
     */
    @Override
    public void close() {
        List<FaultInjectingBackend> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(backends);
            backends.clear();
        }
        faults.reset();
        RuntimeException failure = null;
        for (FaultInjectingBackend backend : toClose) {
            try {
                backend.close();
            } catch (RuntimeException e) {
                failure = addTo(failure, e);
            }
        }
        try {
            if (ownsTopology) {
                topology.close();
            } else {
                cleanTopology();
            }
        } catch (RuntimeException e) {
            failure = addTo(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void cleanTopology() {
        topology.restoreAll();
        topology.flushAll();
        topology.scriptFlush();
    }

    private static RuntimeException addTo(RuntimeException failure, RuntimeException next) {
        if (failure == null) {
            return next;
        }
        failure.addSuppressed(next);
        return failure;
    }

    @Override
    public String toString() {
        return "RedisLockBackendFixture{" + name + ", " + topology + "}";
    }
}
