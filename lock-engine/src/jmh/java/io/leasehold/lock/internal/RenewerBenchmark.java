package io.leasehold.lock.internal;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Renewal scheduling: one lease added to and removed from a {@link Renewer} that already schedules
 * {@code leases} leases — what every acquisition and release of an auto-renewed lease costs the
 * watchdog. Only {@code Renewer.add(DefaultLease)}, {@code Renewer.remove(DefaultLease)} and the
 * lease's constructor are used (besides {@code new Renewer(Engine)}), so the benchmark keeps measuring
 * whatever Renewer does inside them when its data structure changes.
 *
 * <p>The leases are built as {@link Acquisition} builds one, on a client over the in-memory backend
 * (its engine and its side of the lease), but are never handed out: nothing else runs. Their lease
 * time is a day, so that no renewal round falls due while measuring (the first would come after 8
 * hours), and the added lease is the newest, as a real acquisition's is: its renewal is due last.
 * Two sizes show how the cost grows with the number of leases.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RenewerBenchmark extends EngineBenchmark {

    private static final LockOptions DAY_LEASE =
            LockOptions.builder().leaseTime(Duration.ofDays(1)).build();

    @Param({"100", "10000"})
    public int leases;

    private DefaultLockClient client;
    private Renewer renewer;
    private DefaultLease added;

    @Setup
    public void scheduleLeases() {
        client = (DefaultLockClient) LockClient.create(new InMemoryLockBackend());
        renewer = new Renewer(client.engine());
        for (int i = 0; i < leases; i++) {
            renewer.add(lease("lease:" + i, i + 1));
        }
        added = lease("lease:added", leases + 1);
    }

    @TearDown
    public void close() {
        client.close(); // stops the engine's timer, and with it the renewer's; closes the backend
    }

    @Benchmark
    public void addThenRemove() {
        renewer.add(added);
        renewer.remove(added);
    }

    private DefaultLease lease(String name, long token) {
        Engine engine = client.engine();
        return new DefaultLease(client, name, OwnerIds.next(), DAY_LEASE, token, engine.now(), 0);
    }
}
