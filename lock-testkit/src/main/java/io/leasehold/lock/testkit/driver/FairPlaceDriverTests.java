package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.faults.Direction;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every driver keeps {@code fairLock} waiters' places in Redis's wait queue through the watchdog's
 * batched renew calls, on a real Redis: many waiters of several clients hold their places past their
 * waiter lease and are served in enqueue order without asking again; places and a lease in the same
 * calls survive renew replies delayed close to the waiter lease and a foreign member in a queue key;
 * a long hold of a granted waiter costs the others no calls; waiters get the lock after the lock and
 * its queue were lost without a message (a flush, an eviction).
 * Extend it with the driver's backend; it runs on the JVM's shared standalone server.
 *
 * <p>Real time passes here where the waiter lease (1.5 s) must run out, with margins of a lease or
 * more; the assertions are on Redis's and the clients' state, never on how fast anything was.
 */
public abstract class FairPlaceDriverTests {

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;
    /** Longer than a waiter lease (1.5 s) with a wide margin: only renewals can keep a place that long. */
    private static final Duration PAST_WAITER_LEASES = Duration.ofSeconds(4);

    private final StandaloneRedis redis = RedisFixtures.sharedStandalone();
    private final List<LockClient> clients = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<String> losses = new CopyOnWriteArrayList<>();
    private final List<String> uncertain = new CopyOnWriteArrayList<>();

    /** A backend over a new client of the driver connected to {@code endpoint}; closing it closes the client. */
    protected abstract LockBackend open(RedisEndpoint endpoint);

    @AfterEach
    void closeClients() throws Exception {
        for (LockClient client : clients) {
            client.close();
        }
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }

    /** A client over {@code backend} that records every loss and every uncertain lease. */
    private LockClient client(LockBackend backend) {
        LockClient client = LockClient.builder(backend)
                .commandTimeout(Duration.ofSeconds(5))
                .listener(new LockEventListener() {
                    @Override
                    public void onLeaseLost(LeaseLoss loss) {
                        losses.add(loss.toString());
                    }

                    @Override
                    public void onLeaseUncertain(String lockName, long token, Duration validFor, Throwable cause) {
                        uncertain.add(lockName + " " + token + " " + cause);
                    }
                })
                .build();
        clients.add(client);
        return client;
    }

    private CountingLockBackend counting(RedisEndpoint endpoint) {
        return new CountingLockBackend(open(endpoint));
    }

    /** A lease of {@code client} renewed every second: its renewals ride in the calls with the client's places. */
    private static Lease heartbeat(LockClient client) {
        return client.lock(
                        "fair-places:heartbeat:" + UUID.randomUUID(),
                        LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build())
                .acquire(Duration.ofSeconds(5));
    }

    private long zcard(String key) {
        return ((Number) redis.server().command("ZCARD", key)).longValue();
    }

    private List<String> members(String key) {
        return ((List<?>) redis.server().command("ZRANGE", key, "0", "-1"))
                .stream().map(String::valueOf).toList();
    }

    /**
     * Waits until {@code client}'s subscription of the release channel is active and a renewal round
     * of its places has passed since: a fair waiter that queued before the subscription was active
     * asks once more when it becomes active (a release may have come before), and is counted from
     * here on.
     */
    private static void settled(LockClient client, CountingLockBackend backend) {
        Eventually.until(
                "the release channel is subscribed", () -> client.diagnostics().subscribedNames() >= 1);
        long renewals = backend.count(ScriptNames.RENEW);
        Eventually.until("a round of renewals since", () -> backend.count(ScriptNames.RENEW) >= renewals + 2);
    }

    /**
     * Has {@code client} open its connections through {@code proxy} before the test delays replies: a
     * pooled driver (Jedis) opens a connection when a call finds none idle, and a new connection's
     * handshake (CLIENT SETINFO) waits for replies, so under 1.2 s latency a call that opens one is
     * written 2.4 s late, after a waiter lease. That cost is the pool's (its minIdle), not the
     * renewals', which this test is about. Acquires that overlap under a short latency make the pool
     * open as many connections as the driver uses at once.
     */
    private static void openConnections(LockClient client, FaultProxy proxy) throws Exception {
        proxy.latency(Direction.TARGET_TO_CLIENT, Duration.ofMillis(200));
        List<CompletableFuture<Lease>> overlapping = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            overlapping.add(
                    client.lock("fair-places:warm-up:" + UUID.randomUUID()).acquireAsync(Duration.ofSeconds(10)));
        }
        List<Lease> leases = new ArrayList<>();
        for (CompletableFuture<Lease> acquired : overlapping) {
            leases.add(acquired.get(30, TimeUnit.SECONDS));
        }
        proxy.latency(Direction.TARGET_TO_CLIENT, Duration.ZERO);
        for (Lease lease : leases) {
            assertTrue(lease.release());
        }
    }

    private static long acquires(List<CountingLockBackend> backends) {
        return backends.stream().mapToLong(b -> b.count(ScriptNames.ACQUIRE)).sum();
    }

    /** Queues {@code count} fair waiters of {@code name} round-robin over {@code clients}, one at a time (a known order). */
    private List<CompletableFuture<Lease>> queue(String name, List<LockClient> over, int count) {
        String queue = LockKeys.queueKey(PREFIX, name);
        List<CompletableFuture<Lease>> waiting = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            waiting.add(over.get(i % over.size()).fairLock(name).acquireAsync(Duration.ofSeconds(120)));
            int queued = i + 1;
            Eventually.until("waiter " + queued + " took its place", () -> zcard(queue) == queued);
        }
        return waiting;
    }

    /** Records the order in which the waiters got the lock (their index), their tokens, and any overlap; releases each at once. */
    private static final class Served {
        final List<Integer> order = new CopyOnWriteArrayList<>();
        final List<Long> tokens = new CopyOnWriteArrayList<>();
        final List<String> overlaps = new CopyOnWriteArrayList<>();
        private final AtomicInteger inside = new AtomicInteger();

        void watch(List<CompletableFuture<Lease>> waiting) {
            for (int i = 0; i < waiting.size(); i++) {
                int index = i;
                waiting.get(i).thenAccept(lease -> {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.add("waiter " + index + " overlapped another holder");
                    }
                    order.add(index);
                    tokens.add(lease.fencingToken());
                    inside.decrementAndGet();
                    lease.releaseAsync();
                });
            }
        }

        void assertFifo(int count) {
            assertEquals(List.of(), overlaps);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                expected.add(i);
            }
            assertEquals(expected, order, "served in enqueue order across the clients");
            for (int i = 1; i < tokens.size(); i++) {
                assertTrue(tokens.get(i) > tokens.get(i - 1), "tokens rise along the queue: " + tokens);
            }
        }
    }

    @Test
    void shouldServeManyFairWaitersOfFourClientsInEnqueueOrderAfterTheWatchdogKeptTheirPlaces() throws Exception {
        String name = "fair-places:fifo:" + UUID.randomUUID();
        List<CountingLockBackend> backends = new ArrayList<>();
        List<LockClient> waiters = new ArrayList<>();
        List<Lease> heartbeats = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            CountingLockBackend backend = counting(redis.endpoint());
            backends.add(backend);
            LockClient client = client(backend);
            waiters.add(client);
            heartbeats.add(heartbeat(client)); // leases in the same renew calls as the places
        }
        Lease held = client(open(redis.endpoint())).fairLock(name).acquire(Duration.ofSeconds(5));
        List<CompletableFuture<Lease>> waiting = queue(name, waiters, 80);
        Served served = new Served();
        served.watch(waiting);

        Thread.sleep(PAST_WAITER_LEASES.toMillis());
        assertEquals(80, zcard(LockKeys.queueKey(PREFIX, name)), "no place lapsed while the holder held");
        assertTrue(held.release());
        CompletableFuture.allOf(waiting.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
        Eventually.until("every waiter was served", () -> served.order.size() == 80);

        served.assertFifo(80);
        for (Lease heartbeat : heartbeats) {
            assertTrue(heartbeat.release(), "the lease that shared the calls: " + heartbeat.state());
        }
        assertEquals(List.of(), losses);
    }

    @Test
    void shouldKeepPlacesInOrderAndALeaseInTheSameCallsWhileRenewRepliesComeLate() throws Exception {
        String name = "fair-places:late-replies:" + UUID.randomUUID();
        String queue = LockKeys.queueKey(PREFIX, name);
        FaultProxy proxy = FaultProxy.start(redis.endpoint());
        resources.add(proxy);
        CountingLockBackend slow = counting(proxy.endpoint());
        LockClient slowClient = client(slow);
        openConnections(slowClient, proxy);
        Lease lease = slowClient
                .lock(
                        "fair-places:lease:" + UUID.randomUUID(),
                        LockOptions.builder().leaseTime(Duration.ofSeconds(10)).build())
                .acquire(Duration.ofSeconds(5));
        Lease held = client(open(redis.endpoint())).fairLock(name).acquire(Duration.ofSeconds(5));
        List<CompletableFuture<Lease>> waiting = queue(name, List.of(slowClient), 10);
        Served served = new Served();
        served.watch(waiting);
        settled(slowClient, slow);
        List<String> places = members(queue);
        long asked = slow.count(ScriptNames.ACQUIRE);

        // Redis runs every renew call on time, but its replies come 1.2 s late: the next renewals are
        // sent all the same, a period after each other, not after the replies.
        proxy.latency(Direction.TARGET_TO_CLIENT, Duration.ofMillis(1_200));
        for (int i = 0; i < 8; i++) {
            Thread.sleep(500);
            assertEquals(places, members(queue), "the places, kept, in order");
        }
        proxy.latency(Direction.TARGET_TO_CLIENT, Duration.ZERO);

        assertEquals(asked, slow.count(ScriptNames.ACQUIRE), "no waiter had to ask");
        assertTrue(held.release());
        CompletableFuture.allOf(waiting.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
        Eventually.until("every waiter was served", () -> served.order.size() == 10);
        served.assertFifo(10);
        assertTrue(lease.release(), "the lease renewed in the same calls: " + lease.state());
        assertEquals(List.of(), losses);
        assertEquals(List.of(), uncertain);
    }

    @Test
    void shouldKeepALeaseAndAPlaceWhoseQueueHoldsAForeignMemberScoredInfinity() throws Exception {
        String name = "fair-places:foreign:" + UUID.randomUUID();
        String waitersKey = LockKeys.waitersKey(PREFIX, name);
        CountingLockBackend backend = counting(redis.endpoint());
        LockClient client = client(backend);
        Lease heartbeat = heartbeat(client);
        Lease held = client(open(redis.endpoint())).fairLock(name).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = queue(name, List.of(client), 1).get(0);
        String owner = members(waitersKey).get(0);
        settled(client, backend);
        long asked = backend.count(ScriptNames.ACQUIRE);
        // Another application's member in Leasehold's key: its score is no TTL (PEXPIRE inf fails).
        // Only the renewals meet it here (the scripts' contract tests cover acquire, release, handoff).
        redis.server().command("ZADD", waitersKey, "+inf", "foreign-member");

        Thread.sleep(PAST_WAITER_LEASES.toMillis());

        assertTrue(heartbeat.isValid(), "the lease in the same calls was renewed: " + heartbeat.state());
        assertEquals(asked, backend.count(ScriptNames.ACQUIRE), "the place was kept: no need to ask");
        assertTrue(
                members(waitersKey).contains(owner),
                () -> "the place is still there: " + members(waitersKey) + " queue "
                        + members(LockKeys.queueKey(PREFIX, name)) + ", owner " + owner + ", waiter " + waiting
                        + ", renew calls " + backend.count(ScriptNames.RENEW) + ", acquires "
                        + backend.count(ScriptNames.ACQUIRE) + ", " + client.diagnostics());
        assertEquals(List.of(), uncertain);
        redis.server().command("ZREM", waitersKey, "foreign-member");
        assertTrue(held.release());
        assertTrue(waiting.get(10, TimeUnit.SECONDS).release());
        assertTrue(heartbeat.release());
        assertEquals(List.of(), losses);
    }

    @Test
    void shouldNotHaveQueuedWaitersAskWhileGrantedWaitersHoldTheLockLongerThanTheGrantWindow() throws Exception {
        String name = "fair-places:long-holds:" + UUID.randomUUID();
        List<CountingLockBackend> backends = List.of(counting(redis.endpoint()), counting(redis.endpoint()));
        List<LockClient> waiters = List.of(client(backends.get(0)), client(backends.get(1)));
        Lease held = client(open(redis.endpoint())).fairLock(name).acquire(Duration.ofSeconds(5));
        List<CompletableFuture<Lease>> waiting = queue(name, waiters, 12);
        settled(waiters.get(0), backends.get(0));
        settled(waiters.get(1), backends.get(1));
        long asked = acquires(backends);

        assertTrue(held.release());
        for (int i = 0; i < 3; i++) { // each granted waiter holds 2 s, past the 1.5 s grant window
            Lease lease = waiting.get(i).get(10, TimeUnit.SECONDS);
            Thread.sleep(2_000);
            assertTrue(lease.release());
        }

        assertEquals(asked, acquires(backends), "the queued waiters' places were kept: nobody asked");
        for (CompletableFuture<Lease> later : waiting.subList(3, waiting.size())) {
            later.cancel(false);
        }
        assertEquals(List.of(), losses);
    }

    @Test
    void shouldServeEveryFairWaiterAfterTheLockAndItsQueueWereLostWithoutAMessage() throws Exception {
        String name = "fair-places:lost-keys:" + UUID.randomUUID();
        List<LockClient> waiters = List.of(client(open(redis.endpoint())), client(open(redis.endpoint())));
        client(open(redis.endpoint())).fairLock(name).acquire(Duration.ofSeconds(5));
        List<CompletableFuture<Lease>> waiting = queue(name, waiters, 10);
        Served served = new Served();
        served.watch(waiting);

        // as a FLUSHALL or an eviction would (the shared server's other keys are left alone)
        redis.server()
                .command(
                        "DEL",
                        LockKeys.lockKey(PREFIX, name),
                        LockKeys.queueKey(PREFIX, name),
                        LockKeys.waitersKey(PREFIX, name));

        CompletableFuture.allOf(waiting.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        Eventually.until("every waiter was served", () -> served.order.size() == 10);
        assertEquals(List.of(), served.overlaps);
        Eventually.until(
                "nothing of the name left but its fencing counter",
                () -> redis.server()
                                .command("EXISTS", LockKeys.lockKey(PREFIX, name))
                                .equals(0L)
                        && zcard(LockKeys.queueKey(PREFIX, name)) == 0);
    }
}
