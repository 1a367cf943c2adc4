package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.ReleaseUnconfirmedException;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attacks on how a lease ends over a real driver and a real {@code redis-server} of its own: the
 * loss reason and cause when Redis is killed (not frozen), with a listener that blocks; where user
 * code runs meanwhile (G13); a lease's validity never outliving its TTL in Redis after an extend to a
 * shorter time (G4); and releases racing their own deadline, every observer agreeing on the ending
 * (G6, G9). Extend it with your {@link DriverUnderTest}.
 */
public abstract class LeaseLossDriverTests {

    /** The driver under test. */
    protected abstract DriverUnderTest driver();

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;

    private final StandaloneRedis redis = RedisFixtures.startStandalone();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<String> userThreads = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        try {
            if (!redis.server().isRunning()) {
                redis.server().restart();
            }
            redis.resumeAll();
        } finally {
            redis.close();
        }
    }

    /**
     * {@code backend} once it has connected: the first connection of a test JVM (class loading, the
     * handshake, while the module's other forks start alike on two cores) took more than the 5 s the
     * test below gives each command, and failed its first acquisition in a fresh-clone CI run.
     */
    private static LockBackend connected(LockBackend backend) throws Exception {
        backend.shardedPubSub().get(30, TimeUnit.SECONDS);
        return backend;
    }

    /**
     * Redis is killed (SIGKILL: connections reset, reconnects refused) under an auto-renewed 1 s
     * lease, while a listener blocks the event thread on the first "uncertain" event. The lease is
     * still lost in time (its state at once, {@code lost()} on the callback executor, not held up by
     * the listener), as {@code BACKEND_UNAVAILABLE} with a cause, uncertain first; its release says
     * false; no listener or continuation ran on a driver or timer thread.
     */
    @Test
    void shouldReportBackendUnavailableWithACauseWhenRedisIsKilledUnderALeaseAndAListenerBlocks() throws Exception {
        CountDownLatch listenerBlocked = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        LockClient client = LockClient.builder(connected(driver().open(redis).backend()))
                .commandTimeout(Duration.ofSeconds(5))
                .closeTimeout(Duration.ofSeconds(2))
                .listener(new LockEventListener() {
                    @Override
                    public void onLeaseUncertain(String lockName, long token, Duration validFor, Throwable cause) {
                        userThreads.add(Thread.currentThread().getName());
                        events.add(lockName + " uncertain");
                        listenerBlocked.countDown();
                        try {
                            unblock.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }

                    @Override
                    public void onLeaseLost(LeaseLoss loss) {
                        userThreads.add(Thread.currentThread().getName());
                        events.add(loss.lockName() + " lost:" + loss.reason());
                    }

                    @Override
                    public void onReleased(String lockName, long token, Duration heldFor) {
                        events.add(lockName + " released");
                    }
                })
                .build();
        try {
            Lease lease = client.lock(
                            "killed",
                            LockOptions.builder()
                                    .leaseTime(Duration.ofSeconds(1))
                                    .build())
                    .acquire(Duration.ofSeconds(5));
            CompletableFuture<String> toldOn =
                    lease.lost().thenApply(loss -> Thread.currentThread().getName());
            redis.server().kill();
            long killedAt = System.nanoTime();

            LeaseLoss loss = lease.lost().get(10, TimeUnit.SECONDS);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            assertEquals(LeaseLoss.Reason.BACKEND_UNAVAILABLE, loss.reason(), "loss " + loss);
            assertTrue(loss.cause().isPresent(), "a cause for a Redis that is gone: " + loss);
            assertEquals(LeaseState.LOST, lease.state());
            assertTrue(tookMs < 1_000 + 1_000, "lost no later than its 1 s validity (plus margin), took " + tookMs);
            assertTrue(
                    listenerBlocked.getCount() == 0 || events.isEmpty(),
                    "sanity: the listener was blocked (or not yet called) while the loss was signalled");
            assertFalse(lease.release(), "a lost lease's release");
            String thread = toldOn.get(5, TimeUnit.SECONDS);
            assertUserThread(thread);

            unblock.countDown();
            Eventually.until("the loss reached the listener", () -> events.contains("killed lost:BACKEND_UNAVAILABLE"));
            assertTrue(
                    events.indexOf("killed uncertain") >= 0
                            && events.indexOf("killed uncertain") < events.indexOf("killed lost:BACKEND_UNAVAILABLE"),
                    "uncertain before lost: " + events);
            assertFalse(events.contains("killed released"), "never released: " + events);
            for (String t : userThreads) {
                assertUserThread(t);
            }
        } finally {
            unblock.countDown();
            redis.server().restart();
            client.close();
        }
    }

    /**
     * An auto-renewed 3 s lease extended to a shorter time (in flight, then confirmed) and back, again
     * and again, while the watchdog renews it: sampled all along, its {@code remaining()} is never more
     * than what Redis holds (PTTL), and Redis always has the lock while the lease says it is valid (G4).
     */
    @Test
    void shouldNeverCountALeaseValidPastItsRedisTtlWhileExtendingItToShorterTimes() throws Exception {
        String name = "short-extends";
        String key = LockKeys.lockKey(PREFIX, name);
        try (LockClient client = LockClient.create(driver().open(redis).backend())) {
            Lease lease = client.lock(
                            name,
                            LockOptions.builder()
                                    .leaseTime(Duration.ofSeconds(3))
                                    .build())
                    .acquire(Duration.ofSeconds(5));
            long[] shorts = {400, 250, 2_000, 300, 1_000};
            List<String> violations = new ArrayList<>();
            int samples = 0;
            for (long ms : shorts) {
                CompletableFuture<Void> extending = lease.extendAsync(Duration.ofMillis(ms));
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
                while (System.nanoTime() - until < 0) {
                    long before = System.nanoTime();
                    Duration left = lease.remaining();
                    long pttl =
                            Long.parseLong(redis.server().command("PTTL", key).toString());
                    long after = System.nanoTime();
                    samples++;
                    if (left.isZero()) {
                        continue;
                    }
                    // The lease ends at before + left; Redis's key expires no later than after + pttl.
                    long slackMs = TimeUnit.NANOSECONDS.toMillis(after - before) + 2;
                    if (pttl < 0 || left.toMillis() > pttl + slackMs) {
                        violations.add("extend(" + ms + ") remaining " + left.toMillis() + " ms, PTTL " + pttl
                                + " ms (+" + slackMs + " ms)");
                    }
                }
                extending.get(5, TimeUnit.SECONDS);
                assertTrue(lease.isValid(), "valid after extend(" + ms + "): " + lease);
            }
            assertTrue(samples > 20, "sanity: samples taken " + samples);
            assertTrue(violations.isEmpty(), "G4: the lease counted on more than Redis held: " + violations);
            assertEquals(LeaseState.HELD, lease.state());
            assertTrue(lease.release());
            assertNull(redis.server().command("GET", key));
        }
    }

    /**
     * Many short leases with auto-renew off, each released within a few milliseconds either side of
     * its own loss check: however each race goes, every observer agrees on how it ended (release()'s
     * answer, state(), lost(), the listener's one ending), a release that says true left nothing in
     * Redis, and none is lost STOLEN or BACKEND_UNAVAILABLE (nothing took the locks, Redis answered).
     */
    @Test
    void shouldAgreeOnHowEveryLeaseEndedWhenItsReleaseRacesItsDeadline() throws Exception {
        List<String> endings = new CopyOnWriteArrayList<>();
        LockClient client = LockClient.builder(driver().open(redis).backend())
                .listener(new LockEventListener() {
                    @Override
                    public void onReleased(String lockName, long token, Duration heldFor) {
                        endings.add(lockName + " released");
                    }

                    @Override
                    public void onReleaseUnconfirmed(
                            String lockName, long token, Duration heldFor, ReleaseUnconfirmedException cause) {
                        endings.add(lockName + " unconfirmed");
                    }

                    @Override
                    public void onLeaseLost(LeaseLoss loss) {
                        endings.add(loss.lockName() + " lost:" + loss.reason());
                    }
                })
                .build();
        try {
            int count = 40;
            LockOptions options = LockOptions.builder()
                    .leaseTime(Duration.ofMillis(300))
                    .autoRenew(false)
                    .build();
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                leases.add(client.lock("race:" + i, options).acquire(Duration.ofSeconds(5)));
            }
            List<Boolean> answers = new CopyOnWriteArrayList<>();
            for (int i = 0; i < count; i++) {
                answers.add(null);
            }
            List<Thread> releasers = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Lease lease = leases.get(i);
                int index = i;
                // from 15 ms before the end of the validity to 15 ms after it, spread over the leases
                long offsetNanos = TimeUnit.MILLISECONDS.toNanos(-15 + (30L * i) / count);
                long at = System.nanoTime() + lease.remaining().toNanos() + offsetNanos;
                Thread t = new Thread(
                        () -> {
                            LockSupport.parkNanos(at - System.nanoTime());
                            answers.set(index, lease.release());
                        },
                        "race-releaser-" + i);
                t.start();
                releasers.add(t);
            }
            for (Thread t : releasers) {
                t.join(10_000);
            }
            for (int i = 0; i < count; i++) {
                String name = "race:" + i;
                Lease lease = leases.get(i);
                Boolean answer = answers.get(i);
                assertTrue(answer != null, name + ": release answered");
                Eventually.until(
                        "one ending for " + name, () -> endings.stream().anyMatch(e -> e.startsWith(name + " ")));
                List<String> mine =
                        endings.stream().filter(e -> e.startsWith(name + " ")).toList();
                if (answer) {
                    assertEquals(LeaseState.RELEASED, lease.state(), name);
                    assertFalse(lease.lost().isDone(), name + ": lost() of a released lease");
                    assertEquals(List.of(name + " released"), mine, name);
                } else if (lease.state() == LeaseState.LOST) {
                    LeaseLoss loss = lease.lost().get(5, TimeUnit.SECONDS);
                    assertEquals(LeaseLoss.Reason.EXPIRED, loss.reason(), name + ": " + loss);
                    assertEquals(List.of(name + " lost:EXPIRED"), mine, name);
                } else {
                    assertEquals(LeaseState.RELEASED, lease.state(), name);
                    assertFalse(lease.lost().isDone(), name + ": lost() of a released lease");
                    assertEquals(List.of(name + " unconfirmed"), mine, name);
                }
            }
            Eventually.until(
                    "every lock gone from Redis",
                    () -> redis.server()
                            .command("KEYS", LockKeys.lockKey(PREFIX, "race:*"))
                            .toString()
                            .equals("[]"));
        } finally {
            client.close();
        }
    }

    private static void assertUserThread(String thread) {
        if (thread.startsWith("leasehold-timer")
                || thread.startsWith("leasehold-jedis")
                || thread.startsWith("lettuce")
                || thread.contains("EventLoop")
                || thread.contains("epoll")
                || thread.contains("nio")) {
            fail("G13: user code ran on an engine or driver thread: " + thread);
        }
    }
}
