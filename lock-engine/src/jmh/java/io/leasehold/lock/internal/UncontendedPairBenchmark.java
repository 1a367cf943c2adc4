package io.leasehold.lock.internal;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The engine's own work for one uncontended acquire + release pair (blocking calls, default options:
 * auto-renewed 30 s lease, 60 s wait), with Redis replaced by the in-memory backend, whose scripts run
 * on the calling thread: what the pair costs besides its two round trips. One thread, and four
 * threads on one client (each on its own name), where the engine's shared parts (its timer, its
 * maps, the watchdog) are contended.
 */
@State(Scope.Benchmark)
public class UncontendedPairBenchmark extends EngineBenchmark {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private InMemoryLockBackend backend;
    private LockClient client;
    private final AtomicInteger threadIds = new AtomicInteger();

    @Setup(Level.Trial)
    public void start() {
        backend = new InMemoryLockBackend();
        client = LockClient.create(backend);
    }

    @TearDown(Level.Trial)
    public void stop() {
        client.close();
        backend.close();
    }

    /** Each benchmark thread's own lock name. */
    @State(Scope.Thread)
    public static class Name {
        String value;

        @Setup(Level.Trial)
        public void pick(UncontendedPairBenchmark bench) {
            value = "bench:pair:" + bench.threadIds.incrementAndGet();
        }
    }

    @Benchmark
    public long oneThread(Name name) {
        return pair(name);
    }

    @Benchmark
    @Threads(4)
    public long fourThreads(Name name) {
        return pair(name);
    }

    private long pair(Name name) {
        Lease lease = client.lock(name.value).acquire(WAIT);
        long token = lease.fencingToken();
        lease.release();
        return token;
    }
}
