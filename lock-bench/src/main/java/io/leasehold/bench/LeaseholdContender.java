package io.leasehold.bench;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.jedis.JedisLockBackend;
import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Leasehold over Lettuce or Jedis, with defaults as a user would have them: one {@link LockClient}
 * per application node, each over its own driver client (Lettuce's share one {@link ClientResources},
 * as clients in one JVM would), 30 s lease with auto-renewal; {@code lock(name)}, or
 * {@code fairLock(name)} for the fair rows.
 */
final class LeaseholdContender implements Contender, RenewalScenario.ManyHolder {

    enum Driver {
        LETTUCE,
        JEDIS
    }

    static final Duration WAIT = Duration.ofSeconds(60);
    private static final int BATCH = 500;

    private final Driver driver;
    private final boolean fair;
    private final List<LockClient> clients = new ArrayList<>();
    private final List<AutoCloseable> drivers = new ArrayList<>();

    LeaseholdContender(Driver driver, boolean fair, String uri, int clientCount, ClientResources resources) {
        this.driver = driver;
        this.fair = fair;
        for (int i = 0; i < clientCount; i++) {
            if (driver == Driver.LETTUCE) {
                RedisClient client = RedisClient.create(resources, uri);
                drivers.add(() -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
                clients.add(
                        LockClient.builder(LettuceLockBackend.create(client)).build());
            } else {
                redis.clients.jedis.RedisClient client =
                        redis.clients.jedis.RedisClient.builder().fromURI(uri).build();
                drivers.add(client);
                clients.add(LockClient.builder(JedisLockBackend.create(client)).build());
            }
        }
    }

    @Override
    public String name() {
        return (driver == Driver.LETTUCE ? "Leasehold-Lettuce" : "Leasehold-Jedis") + (fair ? " fairLock" : "");
    }

    @Override
    public boolean fair() {
        return fair;
    }

    /** The client {@code index}, for scenarios that hold many leases through one client. */
    LockClient client(int index) {
        return clients.get(index);
    }

    @Override
    public Worker worker(int client) {
        LockClient locks = clients.get(client);
        return new Worker() {
            private Lease held;

            @Override
            public void acquire(String key) {
                held = lock(key).acquire(WAIT);
            }

            @Override
            public boolean tryAcquire(String key) {
                Optional<Lease> lease = lock(key).tryAcquire();
                lease.ifPresent(l -> held = l);
                return lease.isPresent();
            }

            @Override
            public void release() {
                held.release();
                held = null;
            }

            private DistributedLock lock(String key) {
                return fair ? locks.fairLock(key) : locks.lock(key);
            }
        };
    }

    /** Options for a lease that renews every {@code period} (a third of its lease time). */
    static LockOptions renewingEvery(Duration period) {
        return LockOptions.builder()
                .leaseTime(period.multipliedBy(3))
                .autoRenew(true)
                .build();
    }

    @Override
    public RenewalScenario.HeldLocks holdMany(String prefix, int count, Duration period) {
        LockOptions options = renewingEvery(period);
        List<Lease> leases = new ArrayList<>(count);
        for (int from = 0; from < count; from += BATCH) {
            List<CompletableFuture<Lease>> batch = new ArrayList<>();
            for (int i = from; i < Math.min(count, from + BATCH); i++) {
                batch.add(clients.get(0).lock(prefix + i, options).acquireAsync(WAIT));
            }
            batch.forEach(acquired -> leases.add(acquired.join()));
        }
        return () -> {
            List<CompletableFuture<Boolean>> releases = new ArrayList<>();
            leases.forEach(lease -> releases.add(lease.releaseAsync()));
            int notHeld = 0;
            for (CompletableFuture<Boolean> released : releases) {
                notHeld += released.join() ? 0 : 1;
            }
            return notHeld;
        };
    }

    @Override
    public void kill(int client) {
        try {
            drivers.get(client).close(); // the driver's connections go; the lock client cannot clean up
        } catch (Exception e) {
            throw new IllegalStateException("could not end client " + client, e);
        }
    }

    @Override
    public FifoAudit.Keys fifoKeys(String key) {
        return fair ? FifoAudit.Keys.leasehold(LockClient.Builder.DEFAULT_KEY_PREFIX, key) : null;
    }

    @Override
    public long queued(RedisProbe redis, String key) {
        return Long.parseLong(String.valueOf(redis.command("ZCARD", "leasehold:{" + key + "}:queue")));
    }

    @Override
    public void close() {
        // (a killed client's close runs into its closed driver: bounded by its close timeout)
        clients.parallelStream().forEach(LockClient::close);
        for (AutoCloseable closeable : drivers) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // closing a benchmark's client: nothing to recover
            }
        }
    }
}
