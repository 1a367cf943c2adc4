package io.leasehold.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.redisson.Redisson;
import org.redisson.api.RFuture;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@link RLock} as its users call it: {@code lock()} with the watchdog (no lease time
 * given), {@code unlock()}; one {@link RedissonClient} per application node, default pool sizes;
 * {@code getLock(name)}, or {@code getFairLock(name)} ({@code RFairLock}) for the fair rows.
 */
final class RedissonContender implements Contender, RenewalScenario.ManyHolder {

    private static final int BATCH = 500;
    private final List<RedissonClient> clients = new ArrayList<>();
    private final boolean fair;

    RedissonContender(String uri, int clientCount) {
        this(uri, clientCount, null, false);
    }

    /** With {@code watchdogTimeout} instead of Redisson's 30 s default (it renews every third of it). */
    RedissonContender(String uri, int clientCount, Duration watchdogTimeout, boolean fair) {
        this.fair = fair;
        for (int i = 0; i < clientCount; i++) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            if (watchdogTimeout != null) {
                config.setLockWatchdogTimeout(watchdogTimeout.toMillis());
            }
            clients.add(Redisson.create(config));
        }
    }

    @Override
    public String name() {
        return fair ? Report.REDISSON_FAIR : Report.REDISSON;
    }

    @Override
    public boolean fair() {
        return fair;
    }

    RedissonClient client(int index) {
        return clients.get(index);
    }

    @Override
    public Worker worker(int client) {
        RedissonClient redisson = clients.get(client);
        return new Worker() {
            private RLock held;

            @Override
            public void acquire(String key) {
                RLock lock = fair ? redisson.getFairLock(key) : redisson.getLock(key);
                lock.lock();
                held = lock;
            }

            @Override
            public boolean tryAcquire(String key) {
                RLock lock = fair ? redisson.getFairLock(key) : redisson.getLock(key);
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
        };
    }

    /** Through the first client, all as one (made-up) thread, so that closing can unlock them from any thread. */
    @Override
    public RenewalScenario.HeldLocks holdMany(String prefix, int count, Duration period) {
        RedissonClient redisson = clients.get(0);
        long threadId = 1;
        List<RLock> locks = new ArrayList<>(count);
        for (int from = 0; from < count; from += BATCH) {
            List<RFuture<Void>> batch = new ArrayList<>();
            for (int i = from; i < Math.min(count, from + BATCH); i++) {
                RLock lock = redisson.getLock(prefix + i);
                locks.add(lock);
                batch.add(lock.lockAsync(threadId));
            }
            batch.forEach(locked -> locked.toCompletableFuture().join());
        }
        return () -> {
            List<RFuture<Void>> unlocks = new ArrayList<>();
            locks.forEach(lock -> unlocks.add(lock.unlockAsync(threadId)));
            int notHeld = 0;
            for (RFuture<Void> unlocked : unlocks) {
                try {
                    unlocked.toCompletableFuture().join();
                } catch (CompletionException e) {
                    if (!(e.getCause() instanceof IllegalMonitorStateException)) {
                        throw e;
                    }
                    notHeld++; // Redisson: "attempt to unlock lock, not locked by current thread"
                }
            }
            return notHeld;
        };
    }

    @Override
    public void close() {
        clients.stream().filter(client -> !client.isShutdown()).forEach(RedissonClient::shutdown);
    }

    @Override
    public void kill(int client) {
        clients.get(client).shutdown(0, 0, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** RFairLock's queue: the list {@code redisson_lock_queue:{<name>}}. */
    @Override
    public long queued(RedisProbe redis, String key) {
        return Long.parseLong(String.valueOf(redis.command("LLEN", "redisson_lock_queue:{" + key + "}")));
    }
}
