package io.leasehold.bench;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.jedis.JedisLockBackend;
import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.leasehold.lock.quorum.QuorumBackend;
import io.leasehold.lock.spi.LockBackend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * A contender of the quorum group, over the first {@code nodes} of the group's own standalone servers:
 * Leasehold on one node (its plain backend), Leasehold on a {@link QuorumBackend} of 3 or 5 members
 * (one driver client per member, as an application would build it), or Redisson's
 * {@link RedissonRedLock} over 3 nodes (one {@link RedissonClient} per node). Each of the
 * {@code clients} application nodes has its own driver clients; defaults everywhere (30 s lease with
 * auto-renewal; Redisson's {@code lock()} with its watchdog); plain {@code lock}, never fair (a quorum
 * refuses fair locks).
 */
final class QuorumContender implements Contender {

    enum Kind {
        LEASEHOLD_LETTUCE_1(LeaseholdContender.Driver.LETTUCE, 1),
        LEASEHOLD_JEDIS_1(LeaseholdContender.Driver.JEDIS, 1),
        LEASEHOLD_LETTUCE_3(LeaseholdContender.Driver.LETTUCE, 3),
        LEASEHOLD_JEDIS_3(LeaseholdContender.Driver.JEDIS, 3),
        LEASEHOLD_LETTUCE_5(LeaseholdContender.Driver.LETTUCE, 5),
        REDISSON_RED_LOCK_3(null, 3);

        /** Null for Redisson. */
        final LeaseholdContender.Driver driver;

        final int nodes;

        Kind(LeaseholdContender.Driver driver, int nodes) {
            this.driver = driver;
            this.nodes = nodes;
        }

        /** The row label, e.g. {@code Leasehold-Lettuce, quorum of 3}. */
        String label() {
            if (driver == null) {
                return QuorumReport.RED_LOCK;
            }
            return QuorumReport.leasehold(driver == LeaseholdContender.Driver.LETTUCE, nodes);
        }
    }

    private final Kind kind;
    private final List<LockClient> lockClients = new ArrayList<>();
    private final List<LockBackend> backends = new ArrayList<>();
    private final List<AutoCloseable> drivers = new ArrayList<>();
    /** Per client, one Redisson client per node (Redisson only). */
    private final List<List<RedissonClient>> redissons = new ArrayList<>();

    QuorumContender(Kind kind, List<String> uris, int clientCount, ClientResources resources) {
        this.kind = kind;
        try {
            for (int c = 0; c < clientCount; c++) {
                if (kind.driver == null) {
                    List<RedissonClient> perNode = new ArrayList<>();
                    redissons.add(perNode);
                    for (int n = 0; n < kind.nodes; n++) {
                        Config config = new Config();
                        config.useSingleServer().setAddress(uris.get(n));
                        perNode.add(Redisson.create(config));
                    }
                    continue;
                }
                List<LockBackend> members = new ArrayList<>();
                for (int n = 0; n < kind.nodes; n++) {
                    members.add(member(kind.driver, uris.get(n), resources));
                }
                LockBackend backend = kind.nodes == 1 ? members.get(0) : QuorumBackend.of(members);
                backends.add(backend);
                lockClients.add(LockClient.builder(backend).build());
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private LockBackend member(LeaseholdContender.Driver driver, String uri, ClientResources resources) {
        if (driver == LeaseholdContender.Driver.LETTUCE) {
            RedisClient client = RedisClient.create(resources, uri);
            drivers.add(() -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
            return LettuceLockBackend.create(client);
        }
        redis.clients.jedis.RedisClient client =
                redis.clients.jedis.RedisClient.builder().fromURI(uri).build();
        drivers.add(client);
        return JedisLockBackend.create(client);
    }

    @Override
    public String name() {
        return kind.label();
    }

    @Override
    public Worker worker(int client) {
        return kind.driver == null ? redLockWorker(redissons.get(client)) : leaseholdWorker(lockClients.get(client));
    }

    private static Worker leaseholdWorker(LockClient locks) {
        return new Worker() {
            private Lease held;

            @Override
            public void acquire(String key) {
                held = locks.lock(key).acquire(LeaseholdContender.WAIT);
            }

            @Override
            public boolean tryAcquire(String key) {
                Optional<Lease> lease = locks.lock(key).tryAcquire();
                lease.ifPresent(l -> held = l);
                return lease.isPresent();
            }

            @Override
            public void release() {
                held.release();
                held = null;
            }
        };
    }

    private static Worker redLockWorker(List<RedissonClient> perNode) {
        return new Worker() {
            private RLock held;

            @Override
            public void acquire(String key) {
                RLock lock = redLock(key);
                lock.lock();
                held = lock;
            }

            @Override
            public boolean tryAcquire(String key) {
                RLock lock = redLock(key);
                if (lock.tryLock()) {
                    held = lock;
                    return true;
                }
                return false;
            }

            @Override
            public void release() {
                held.unlock();
                held = null;
            }

            @SuppressWarnings(
                    "deprecation") // RedissonRedLock is deprecated, but it is what Redisson users have for this
            private RLock redLock(String key) {
                RLock[] locks = perNode.stream().map(r -> r.getLock(key)).toArray(RLock[]::new);
                return new RedissonRedLock(locks);
            }
        };
    }

    @Override
    public void close() {
        lockClients.parallelStream().forEach(LockClient::close);
        for (LockBackend backend : backends) {
            try {
                backend.close();
            } catch (Exception ignored) {
                // closing a benchmark's client: nothing to recover
            }
        }
        for (AutoCloseable closeable : drivers) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // as above
            }
        }
        redissons.stream()
                .flatMap(List::stream)
                .parallel()
                .filter(client -> !client.isShutdown())
                .forEach(RedissonClient::shutdown);
    }
}
