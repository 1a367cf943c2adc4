package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How leases end over a real driver and a real {@code redis-server} of its own (started here, on a
 * free port): Redis frozen with SIGSTOP while leases of every length are held under the default
 * options (5 s command timeout), and {@code close()} while Redis is frozen or has thousands of leases
 * to release. Extend it with your {@link DriverUnderTest}.
 */
public abstract class LeaseEndingDriverTests {

    /** The driver under test. */
    protected abstract DriverUnderTest driver();

    private final StandaloneRedis redis = RedisFixtures.startStandalone();
    private final List<String> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        try {
            redis.resumeAll();
        } finally {
            redis.close();
        }
    }

    private LockClient client(Duration closeTimeout) {
        return LockClient.builder(driver().open(redis).backend())
                .closeTimeout(closeTimeout)
                .listener(new LockEventListener() {
                    @Override
                    public void onLeaseUncertain(String lockName, long token, Duration validFor, Throwable cause) {
                        events.add(lockName + " uncertain");
                    }

                    @Override
                    public void onLeaseLost(LeaseLoss loss) {
                        events.add(loss.lockName() + " lost:" + loss.reason());
                    }
                })
                .build();
    }

    /**
     * Leases of 200 ms to 5 s held by one client (renewed in shared batches), default options: Redis
     * is frozen. Every lease goes UNCERTAIN, then LOST (BACKEND_UNAVAILABLE, with a cause), no later
     * than its validity, whatever the 5 s command timeout.
     */
    @Test
    void shouldMakeEveryLeaseUncertainThenLostWhenRedisFreezesWithDefaultOptions() throws Exception {
        LockClient client = client(Duration.ofSeconds(2));
        try {
            List<Lease> leases = new ArrayList<>();
            // longest first: the 200 ms lease is taken last, just before the freeze, so that the set-up
            // leaves no stretch in which a starved machine could already lose it (seen at load 5.5)
            long[] ms = {5_000, 1_000, 400, 200};
            for (long lease : ms) {
                leases.add(client.lock(
                                "frozen:" + lease,
                                LockOptions.builder()
                                        .leaseTime(Duration.ofMillis(lease))
                                        .build())
                        .acquire(Duration.ofSeconds(5)));
            }
            for (Lease lease : leases) {
                assertTrue(lease.isValid(), "held before the freeze: " + lease + " " + events);
            }
            redis.pauseAll();
            long frozenAt = System.nanoTime();
            for (int i = 0; i < ms.length; i++) {
                Lease lease = leases.get(i);
                LeaseLoss loss = lease.lost().get(ms[i] + 5_000, TimeUnit.MILLISECONDS);
                assertEquals(LeaseLoss.Reason.BACKEND_UNAVAILABLE, loss.reason(), lease.lockName());
                assertTrue(loss.cause().isPresent(), "a cause for " + lease.lockName());
                assertEquals(LeaseState.LOST, lease.state());
            }
            assertTrue(
                    System.nanoTime() - frozenAt < TimeUnit.MILLISECONDS.toNanos(5_000 + 500),
                    "the 5 s lease was lost within its validity");
            for (long lease : ms) {
                String name = "frozen:" + lease;
                Eventually.until("both events of " + name, () -> events.contains(name + " lost:BACKEND_UNAVAILABLE"));
                assertTrue(
                        events.indexOf(name + " uncertain") >= 0
                                && events.indexOf(name + " uncertain")
                                        < events.indexOf(name + " lost:BACKEND_UNAVAILABLE"),
                        "uncertain before lost for " + name + ": " + events);
            }
        } finally {
            redis.resumeAll();
            client.close();
        }
    }

    /**
     * close() with leases held, a release in flight and Redis frozen: bounded by the close timeout
     * (plus the backend's own close on its daemon thread), the release future ends, the holders are
     * told, and once Redis is back and the lease times have run out nothing is left.
     */
    @Test
    void shouldCloseWithinItsTimeoutAndEndEveryFutureWhenRedisIsFrozen() throws Exception {
        Duration closeTimeout = Duration.ofSeconds(2);
        Set<Thread> notThisClients = Eventually.liveThreadsNamed("leasehold-");
        LockClient client = client(closeTimeout);
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            held.add(client.lock(
                            "closing:" + i,
                            LockOptions.builder()
                                    .leaseTime(Duration.ofSeconds(3))
                                    .build())
                    .acquire(Duration.ofSeconds(5)));
        }
        Lease releasing = client.lock(
                        "closing:r",
                        LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build())
                .acquire(Duration.ofSeconds(5));
        redis.pauseAll();
        CompletableFuture<Boolean> release = releasing.releaseAsync();
        long start = System.nanoTime();
        client.close();
        long took = System.nanoTime() - start;
        assertTrue(
                took < closeTimeout.toNanos() + TimeUnit.MILLISECONDS.toNanos(500),
                "close() took " + Duration.ofNanos(took));
        for (Lease lease : held) {
            assertEquals(
                    LeaseLoss.Reason.CLIENT_CLOSED,
                    lease.lost().get(5, TimeUnit.SECONDS).reason());
        }
        CompletableFuture<Boolean> settled = release.handle((value, error) -> true);
        assertTrue(settled.get(10, TimeUnit.SECONDS), "the release in flight ended");
        assertEquals(LeaseState.RELEASED, releasing.state());

        redis.resumeAll();
        Eventually.until(
                () -> "no leasehold thread of the client is left: "
                        + Eventually.threadsNamed("leasehold-", notThisClients),
                () -> notThisClients.containsAll(Eventually.liveThreadsNamed("leasehold-")));
        Eventually.until(
                "the locks expired or were released",
                () -> redis.server()
                        .command("KEYS", LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, "closing:*"))
                        .toString()
                        .equals("[]"));
    }

    /**
     * close() with Redis reachable, 2,000 leases held: within its timeout, every holder told first,
     * nothing left in Redis. The timeout is generous (30 s; about a second is usual) because every
     * release must land within it for nothing to be left, also on a loaded machine; a close() that
     * does not end within its timeout whatever Redis does is {@link #shouldCloseWithinItsTimeoutAndEndEveryFutureWhenRedisIsFrozen}.
     */
    @Test
    void shouldReleaseThousandsOfLeasesOnCloseAndLeaveNothingInRedis() throws Exception {
        Duration closeTimeout = Duration.ofSeconds(30);
        LockClient client = client(closeTimeout);
        List<CompletableFuture<Lease>> acquiring = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            acquiring.add(client.lock("many:" + i).acquireAsync(Duration.ofSeconds(10)));
        }
        List<Lease> leases = new ArrayList<>();
        for (CompletableFuture<Lease> future : acquiring) {
            leases.add(future.get(20, TimeUnit.SECONDS));
        }
        long start = System.nanoTime();
        client.close();
        assertTrue(System.nanoTime() - start < closeTimeout.toNanos(), "close() within its timeout");
        for (Lease lease : leases) {
            assertTrue(lease.lost().isDone(), "told before close() returned: " + lease);
        }
        assertEquals("[]", redis.server().command("KEYS", "leasehold:{many:*}").toString(), "nothing left in Redis");
        assertFalse(events.stream().anyMatch(e -> e.contains("uncertain")), "no uncertainty: " + events.size());
    }
}
