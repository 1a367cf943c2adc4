package io.leasehold.lock.internal;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LockKeys;
import java.time.Duration;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What an acquire builds before its first command: the keys through {@link LockKeys} and the ARGV
 * list of {@link AcquireRound}.
 *
 * <ul>
 *   <li>{@link #keysAndArgs} builds both lists with a fixed owner, so that the string work shows apart
 *       from the random owner ({@link OwnerIdBenchmark}). It copies what {@link Acquisition} builds;
 *       {@code AcquireArgumentsBenchmarkTest} checks it against what a real acquire sends, so the copy
 *       cannot drift unnoticed.</li>
 *   <li>{@link #newAcquisition} runs the real constructor: owner, keys, ARGV and the start time, all
 *       that an acquire pays locally before {@code start()}. It registers nothing and sends nothing.</li>
 * </ul>
 */
@State(Scope.Benchmark)
public class AcquireArgumentsBenchmark extends EngineBenchmark {

    private static final String NAME = "orders:42";
    private static final String OWNER = "0123456789abcdef0123456789abcdef";

    private final long leaseMs = LockOptions.DEFAULT_LEASE_TIME.toMillis();
    private InMemoryLockBackend backend;
    private DefaultLockClient client;
    private DefaultDistributedLock lock;

    @Setup
    public void open() {
        backend = new InMemoryLockBackend();
        client = (DefaultLockClient) LockClient.create(backend);
        lock = (DefaultDistributedLock) client.lock(NAME);
    }

    @TearDown
    public void close() {
        client.close(); // also closes the backend
    }

    @Benchmark
    public void keysAndArgs(Blackhole blackhole) {
        blackhole.consume(acquireKeys(LockClient.Builder.DEFAULT_KEY_PREFIX, NAME));
        blackhole.consume(acquireArgs(OWNER, leaseMs));
    }

    @Benchmark
    public Object newAcquisition() {
        return new Acquisition(lock, Duration.ofSeconds(1), false);
    }

    /** KEYS of acquire.lua, as {@link GrantOrder#attempt} builds them (through the engine's prefix). */
    static List<String> acquireKeys(String prefix, String name) {
        return List.of(
                LockKeys.lockKey(prefix, name),
                LockKeys.fenceKey(prefix, name),
                LockKeys.queueKey(prefix, name),
                LockKeys.waitersKey(prefix, name),
                LockKeys.releaseChannel(prefix, name));
    }

    /** ARGV of a plain lock's acquire.lua, as {@link AcquireRound} and {@link GrantOrder#attempt} build it. */
    static List<String> acquireArgs(String owner, long leaseMs) {
        return List.of(
                owner,
                Long.toString(leaseMs),
                Long.toString(Engine.FENCE_COUNTER_TTL_MS),
                Long.toString(GrantOrder.WAITER_LEASE_MS),
                "SPUBLISH",
                "2"); // place mode: a plain waiter's place lasts the holder's TTL and a waiter lease
    }
}
