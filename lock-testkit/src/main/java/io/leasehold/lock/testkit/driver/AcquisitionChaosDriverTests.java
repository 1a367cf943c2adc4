package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.ReleaseUnconfirmedException;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.faults.Direction;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Adversarial tests of the acquisition (the state machine of commit 9878700) on a real Redis with a
 * driver: many waiters in three clients on one name, random cancellations and short waits, and one
 * client behind a {@link FaultProxy} whose replies are delayed past the command timeout for a while
 * (late replies of attempts and of handoffs), then its connections cut. Checked: never two holders at
 * once (a shared counter, rising fencing tokens), every acquisition ends, each reports one outcome
 * and paired wait events, nothing is left in Redis and no subscription outlives the linger time.
 *
 * <p>A driver module runs these by extending this class and saying how to open a backend at an
 * endpoint.
 */
public abstract class AcquisitionChaosDriverTests {

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(8))
            .autoRenew(false)
            .build();

    private final StandaloneRedis redis = RedisFixtures.sharedStandalone();
    private final ScheduledExecutorService delays = Executors.newScheduledThreadPool(2, daemon("chaos-driver"));
    private final ExecutorService workers = Executors.newFixedThreadPool(4, daemon("holder-work"));
    private final List<LockClient> clients = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();

    /** A backend over a new client of the driver connected to {@code endpoint}; closing it closes the client. */
    protected abstract LockBackend open(RedisEndpoint endpoint);

    @AfterEach
    void tearDown() throws Exception {
        for (LockClient c : clients) {
            c.close();
        }
        for (AutoCloseable r : resources) {
            r.close();
        }
        delays.shutdownNow();
        workers.shutdownNow();
    }

    /** Three clients straight to Redis, random cancels and short waits. */
    @RepeatedTest(3)
    void shouldKeepEveryPromiseWithManyWaitersAndRandomCancels() throws Exception {
        String name = "acq-chaos:" + UUID.randomUUID();
        Run run = new Run(name);
        List<LockClient> cs =
                List.of(run.client(redis.endpoint()), run.client(redis.endpoint()), run.client(redis.endpoint()));
        run.go(cs, 12, () -> {});
        run.checkEnd(false);
    }

    /**
     * One client behind a proxy whose replies come 800 ms late (past the 500 ms command timeout) for
     * 1.5 s, then whose connections are cut: its attempts' and handoffs' replies arrive late or never.
     */
    @RepeatedTest(3)
    void shouldKeepEveryPromiseWhenOneClientsRepliesComeAfterTheCommandTimeout() throws Exception {
        String name = "acq-chaos-late:" + UUID.randomUUID();
        FaultProxy proxy = FaultProxy.start(redis.endpoint());
        resources.add(proxy);
        Run run = new Run(name);
        List<LockClient> cs =
                List.of(run.client(proxy.endpoint()), run.client(redis.endpoint()), run.client(redis.endpoint()));
        run.go(cs, 10, () -> {
            delays.schedule(
                    () -> proxy.latency(Direction.TARGET_TO_CLIENT, Duration.ofMillis(800)), 30, TimeUnit.MILLISECONDS);
            delays.schedule(
                    () -> {
                        proxy.latency(Direction.TARGET_TO_CLIENT, Duration.ZERO);
                        proxy.cutConnections();
                    },
                    1530,
                    TimeUnit.MILLISECONDS);
        });
        run.checkEnd(true);
    }

    /**
     * A fair waiter whose client's round trip (600 ms through a proxy) is longer than the 0.5 s a fair
     * attempt first waits, but within its 2 s command timeout: the lock the queue grants it reaches it
     * (its later attempts wait the command timeout), and the lock is free for the others once it has
     * released. Were its attempts cut at 0.5 s, each retry would reset the granted lock's TTL unseen,
     * and nobody could take the lock for the slow waiter's whole wait.
     */
    @Test
    void shouldHandAFairGrantToAWaiterWhoseRoundTripIsLongerThanHalfASecond() throws Exception {
        String name = "acq-slow-fair:" + UUID.randomUUID();
        SlowLink link = slowLink(name);
        Lease granted = grantAcrossTheSlowLink(link, name);
        assertTrue(granted.release(), "release() of the slow waiter's lease");
        assertTrue(
                link.fast()
                        .fairLock(name)
                        .tryAcquire(Duration.ofSeconds(2))
                        .map(Lease::release)
                        .orElse(false),
                "the fast client takes the lock after the slow waiter released it");
    }

    /**
     * A waiter on a link whose round trip is 600 ms gets a fair grant across clients and holds it
     * past the grant window (1.5 s): its lease must last, since Redis answers (a lease taken from the
     * grant's message starts with the window's validity only: on a link this slow the waiter asks
     * for its grant, which sets its whole lease time).
     */
    @Test
    void shouldKeepAFairGrantTakenOnASlowLinkPastTheGrantWindow() throws Exception {
        String name = "acq-slow-fair-hold:" + UUID.randomUUID();
        Lease granted = grantAcrossTheSlowLink(slowLink(name), name);
        CompletableFuture<io.leasehold.lock.LeaseLoss> loss = granted.lost();
        assertThrows(
                TimeoutException.class,
                () -> loss.get(2_500, TimeUnit.MILLISECONDS),
                "held 2.5 s on the slow link, past the grant window");
        assertTrue(granted.isValid(), "still valid");
        assertTrue(granted.release(), "release() of the slow waiter's lease");
    }

    /**
     * A fair call whose wait ends before a fair attempt's short first wait (0.5 s) on a client whose
     * round trip is 600 ms: its reply decides (the lock taken if free, a timeout if held), never a
     * backend failure while Redis answers within the command timeout; and a waiter that timed out
     * has left the queue, so the holder's release leaves the lock free.
     */
    @Test
    void shouldLetTheReplyDecideAShortFairWaitOnASlowLink() throws Exception {
        String name = "acq-slow-fair-short:" + UUID.randomUUID();
        SlowLink link = slowLink(name);
        LockClient fast = link.fast();
        LockClient slow = link.slow();
        Lease free = slow.fairLock(name)
                .tryAcquire()
                .orElseThrow(() -> new AssertionError("tryAcquire() of a free fair lock"));
        assertTrue(free.release(), "release() of the slow client's lease");
        Lease held = fast.fairLock(name).acquire(Duration.ofSeconds(5));
        assertTrue(slow.fairLock(name).tryAcquire(Duration.ofMillis(300)).isEmpty(), "tryAcquire(300 ms) while held");
        assertTrue(held.release(), "release() of the holder");
        assertEquals(false, fast.lock(name).isLocked(), "isLocked() after the holder's release (the waiter left)");
    }

    /**
     * The fast client holds {@code name}'s fair lock, the slow one queues for it, and the fast one
     * releases: returns the slow waiter's lease (its token above the first holder's).
     */
    private Lease grantAcrossTheSlowLink(SlowLink link, String name) throws Exception {
        Lease first = link.fast().fairLock(name).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> slowWaiter = link.slow().fairLock(name).acquireAsync(Duration.ofSeconds(20));
        String queue = LockKeys.queueKey(PREFIX, name);
        Eventually.until(
                "the slow waiter has its place in the queue",
                () -> Long.valueOf(1).equals(redis.server().command("ZCARD", queue)));
        assertTrue(first.release(), "release() of the first holder");
        Lease granted = slowWaiter.get(10, TimeUnit.SECONDS);
        assertTrue(granted.fencingToken() > first.fencingToken(), "tokens rise along the queue");
        return granted;
    }

    /** A client straight to Redis, and one whose link has 300 ms each way (its command timeout 2 s). */
    private record SlowLink(LockClient fast, LockClient slow) {}

    private SlowLink slowLink(String name) {
        FaultProxy proxy = FaultProxy.start(redis.endpoint());
        resources.add(proxy);
        LockClient fast = LockClient.builder(open(redis.endpoint())).build();
        clients.add(fast);
        LockClient slow = LockClient.builder(open(proxy.endpoint()))
                .commandTimeout(Duration.ofSeconds(2))
                .build();
        clients.add(slow);
        // Connected (and its scripts loaded) before its link slows down. A new client's first command may
        // take longer than the 2 s timeout on a loaded machine: what matters here is only that it answered.
        Eventually.until("the slow client's first acquisition has an answer within its command timeout", () -> {
            slow.lock(name + ":warm-up").tryAcquire(Duration.ofSeconds(5)).ifPresent(Lease::release);
            return true;
        });
        proxy.latency(Duration.ofMillis(300));
        return new SlowLink(fast, slow);
    }

    // ---- the run ----------------------------------------------------------------------------------

    private final class Run {
        final String name;
        final Map<LockClient, AcquisitionEventTally> events = new ConcurrentHashMap<>();
        final ExclusiveSection section = new ExclusiveSection();

        Run(String name) {
            this.name = name;
        }

        LockClient client(RedisEndpoint endpoint) {
            AcquisitionEventTally tally = new AcquisitionEventTally();
            LockClient c = LockClient.builder(open(endpoint))
                    .commandTimeout(COMMAND_TIMEOUT)
                    .listener(tally)
                    .build();
            clients.add(c);
            events.put(c, tally);
            return c;
        }

        void go(List<LockClient> cs, int perClient, Runnable faults) throws Exception {
            events.get(cs.get(1)).acquisitionStarted();
            Lease first = cs.get(1).lock(name, OPTIONS).acquire(Duration.ofSeconds(10));
            List<TrackedAcquisition> all = new ArrayList<>();
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < perClient; i++) {
                for (LockClient c : cs) {
                    int kind = random.nextInt(10);
                    Duration wait = Duration.ofSeconds(60);
                    long cancelAfterMs = -1;
                    if (kind < 2) {
                        wait = Duration.ofMillis(30 + random.nextInt(500));
                    } else if (kind < 5) {
                        cancelAfterMs = random.nextInt(4) == 0 ? 0 : random.nextInt(800);
                    } else if (kind == 5) {
                        wait = Duration.ZERO;
                    }
                    all.add(start(c, wait, cancelAfterMs));
                }
            }
            faults.run();
            section.enter(first.fencingToken());
            section.leave();
            releaseQuietly(first);
            for (TrackedAcquisition acq : all) {
                Object outcome = acq.outcome(acq.waitTime().plus(Duration.ofSeconds(60)));
                if (outcome instanceof Throwable t
                        && !(t instanceof CancellationException)
                        && !(t instanceof LockTimeoutException)
                        && !(t instanceof LockBackendException)) {
                    fail("unexpected outcome " + t + "; " + events.values(), t);
                }
                if (acq.mustGetTheLock() && !(outcome instanceof Long)) {
                    fail("a waiter with a 60 s wait and no cancel did not get the lock: " + outcome + "; "
                            + events.values());
                }
            }
        }

        TrackedAcquisition start(LockClient c, Duration wait, long cancelAfterMs) {
            events.get(c).acquisitionStarted();
            return TrackedAcquisition.start(
                    c.lock(name, OPTIONS), wait, cancelAfterMs, delays, workers, section, lease -> {
                        section.enter(lease.fencingToken());
                        Thread.sleep(ThreadLocalRandom.current().nextInt(4)); // the holder's work
                        section.leave();
                        releaseQuietly(lease);
                    });
        }

        void releaseQuietly(Lease lease) {
            try {
                lease.release();
            } catch (ReleaseUnconfirmedException unconfirmed) {
                // a release whose replies were all late: the lock expires on its own
            }
        }

        void checkEnd(boolean unconfirmedAllowed) {
            assertEquals(List.of(), section.violations(), "violations");
            for (AcquisitionEventTally tally : events.values()) {
                Eventually.until(
                        () -> "each acquisition reports one outcome and its wait end: " + tally, tally::settled);
                assertEquals(List.of(), tally.oddities(), "listener oddities");
            }
            int unconfirmed = events.values().stream()
                    .mapToInt(AcquisitionEventTally::unconfirmedReleases)
                    .sum();
            String key = LockKeys.lockKey(PREFIX, name);
            if (unconfirmed > 0 && unconfirmedAllowed) {
                // a release left the lock to expire: it must be gone within its lease time
                Eventually.until(
                        () -> "the lock expired: " + events.values(),
                        () -> redis.server().command("GET", key) == null);
            } else {
                assertEquals(0, unconfirmed, "unconfirmed releases");
                Eventually.until(
                        () -> "nothing left in Redis: " + redis.server().command("GET", key) + "; " + events.values(),
                        () -> redis.server().command("GET", key) == null);
            }
            String channel = LockKeys.releaseChannel(PREFIX, name);
            Eventually.until(() -> "no subscription lingers: " + subscribers(channel), () -> subscribers(channel) == 0);
        }

        private long subscribers(String channel) {
            List<?> reply = (List<?>) redis.server().command("PUBSUB", "NUMSUB", channel);
            long plain = (Long) reply.get(1);
            List<?> sharded = (List<?>) redis.server().command("PUBSUB", "SHARDNUMSUB", channel);
            return plain + (Long) sharded.get(1);
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
