package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.internal.EngineFootprint;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine under load, over a real driver and a real {@code redis-server} of its own (so that
 * {@code INFO commandstats} counts this class's traffic only): many leases renewed in few calls,
 * many waiters on one lock served without polling or a lost wake-up, many names leaving nothing
 * behind. Extend it with your {@link DriverUnderTest}. Figures go to standard output; bounds are on
 * counts (calls per lease, per acquisition), never on speed.
 */
public abstract class LoadDriverTests {

    /** The driver under test. */
    protected abstract DriverUnderTest driver();

    static final int RENEWED_LEASES = 10_000;
    /**
     * Short, so that several renewal periods (a third of it each) fit in seconds; long enough that a
     * stall of the whole machine for a few seconds (load averages of 15-20 on two cores are common
     * where these tests run) does not end a lease before its next renewal: 3 s leases were lost that way.
     */
    static final Duration RENEWED_LEASE_TIME = Duration.ofSeconds(6);

    static final Duration RENEWAL_PERIOD = RENEWED_LEASE_TIME.dividedBy(3);
    /** Six renewal periods, two whole lease times: a lease the watchdog missed for one would be gone. */
    static final Duration HOLD = RENEWED_LEASE_TIME.multipliedBy(2);
    /**
     * Renewal calls per period: 10,000 leases in batches of at most 500 take 20; the leases were
     * acquired over a second or two, so some renew a little apart, and a round may renew a batch
     * early (riding along) or retry one: measured 18.5-19.9 with 3 s leases (Lettuce and Jedis), bound
     * with margin at 30, far below one call per lease (10,000) that an unbatched watchdog makes.
     */
    static final double MAX_RENEW_CALLS_PER_PERIOD = 30;

    static final int WAITERS = 1_000;
    static final int NODES = 4;
    /**
     * Redis commands per acquisition among 1,000 waiters of 4 nodes, everything counted (script
     * calls, the commands the scripts run, subscribes, publishes). Measured 7.0-8.2 (Lettuce) and 7.5-7.7
     * (Jedis): a handoff is one release script that grants the lock to the next waiter (its GET,
     * SET, TIME), a cross-node handoff adds a publish, a woken waiter's acquire and a contended
     * attempt or two. Bound with about twice the margin at 16; a waiter that polled would cost a
     * script call (and its commands) per poll, growing with the wait, and 1,000 waiters woken at
     * once by every release would cost hundreds per acquisition.
     */
    static final double MAX_COMMANDS_PER_ACQUISITION = 16;
    /** Script calls per acquisition among those waiters: measured 1.27-1.65 (Lettuce) and 1.40-1.48 (Jedis); bound at 3 (see above). */
    static final double MAX_SCRIPT_CALLS_PER_ACQUISITION = 3;
    /**
     * The longest a free lock may sit between one critical section and the next while waiters wait.
     * A lost wake-up leaves it free until the waiter's fallback at the TTL its last attempt saw
     * (about the whole default lease, 30 s, since each holder had just acquired); handoffs take
     * milliseconds (measured at most 0.6 s), and stalls of this machine a few seconds, so 20 s
     * tells a lost wake-up from a slow machine.
     */
    static final Duration MAX_HANDOFF_GAP = Duration.ofSeconds(20);

    /**
     * The wait of an acquire that is not meant to wait: generous, because a loaded machine stalls
     * Redis or the JVM for seconds (a first acquire was seen to time out twice over 5 s command
     * timeouts), and a failure here would be the machine's, not the engine's.
     */
    static final Duration LOADED_WAIT = Duration.ofMinutes(1);

    static final int DISTINCT_NAMES = 100_000;
    static final int CONTENDED_NAMES = 1_000;
    static final int IN_FLIGHT = 256;

    private static StandaloneRedis redis;
    private final List<AutoCloseable> opened = new ArrayList<>();
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void startRedis() {
        redis = RedisFixtures.startStandalone();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @AfterEach
    void closeClients() throws Exception {
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
    }

    private LockBackend backend() {
        LockBackend backend = driver().open(redis).backend();
        opened.add(backend);
        return backend;
    }

    private LockClient client(LockBackend backend) {
        LockClient client = LockClient.create(backend);
        opened.add(0, client); // closed before its backend
        return client;
    }

    @Test
    void shouldKeepTenThousandLeasesThroughSeveralRenewalPeriodsInBatchedCalls() throws Exception {
        CountingLockBackend counting = new CountingLockBackend(backend());
        LockClient client = client(counting);
        LockOptions shortLease =
                LockOptions.builder().leaseTime(RENEWED_LEASE_TIME).build();
        AtomicReferenceArray<Lease> leases = new AtomicReferenceArray<>(RENEWED_LEASES);
        // Given 10,000 leases of one client
        long started = System.nanoTime();
        BoundedInFlight.run(
                RENEWED_LEASES,
                IN_FLIGHT,
                60,
                i -> client.lock(name("held", i), shortLease)
                        .acquireAsync(LOADED_WAIT)
                        .thenAccept(lease -> leases.set(i, lease)));
        long acquiredNanos = System.nanoTime() - started;
        EngineFootprint holding = EngineFootprint.of(client); // (the footprint counts what is there, not just zeros)
        assertTrue(
                holding.heldLeases() == RENEWED_LEASES
                        && holding.localHolders() == RENEWED_LEASES
                        && holding.renewedLeases() == RENEWED_LEASES,
                "footprint while holding: " + holding);
        CompletableFuture<?>[] losses = new CompletableFuture<?>[RENEWED_LEASES];
        for (int i = 0; i < RENEWED_LEASES; i++) {
            losses[i] = leases.get(i).lost();
        }
        // When they are held for two lease times (six renewal periods)
        long renewsBefore = counting.count(ScriptNames.RENEW);
        CommandStats redisBefore = CommandStats.read(redis.server());
        long holdStarted = System.nanoTime();
        try {
            Object loss = CompletableFuture.anyOf(losses).get(HOLD.toMillis(), TimeUnit.MILLISECONDS);
            fail("a lease was lost while held: " + loss);
        } catch (TimeoutException heldThroughout) {
            // what should happen: no loss signal for the whole hold
        }
        double periods = (double) (System.nanoTime() - holdStarted) / RENEWAL_PERIOD.toNanos();
        long renewCalls = counting.count(ScriptNames.RENEW) - renewsBefore;
        CommandStats redisCalls = CommandStats.read(redis.server()).since(redisBefore);
        // Then none was lost: each still valid and held, its key present with its own token
        for (int i = 0; i < RENEWED_LEASES; i++) {
            Lease lease = leases.get(i);
            assertTrue(
                    lease.isValid()
                            && lease.state() == LeaseState.HELD
                            && !lease.lost().isDone(),
                    "lease " + lease);
        }
        assertKeysHeldBy(counting, leases);
        // And renewal took a few batched calls per period, by the client's count and by Redis's
        double perPeriod = renewCalls / periods;
        double redisPerPeriod = redisCalls.scriptCalls() / periods;
        report(
                "renewal",
                String.format(
                        "%d leases acquired in %d ms; held %.1f renewal periods: %d renew calls"
                                + " (%.1f per period), Redis saw %d script calls (%.1f per period)",
                        RENEWED_LEASES,
                        TimeUnit.NANOSECONDS.toMillis(acquiredNanos),
                        periods,
                        renewCalls,
                        perPeriod,
                        redisCalls.scriptCalls(),
                        redisPerPeriod));
        assertTrue(perPeriod <= MAX_RENEW_CALLS_PER_PERIOD, "renew calls per period: " + perPeriod);
        assertTrue(
                redisPerPeriod <= MAX_RENEW_CALLS_PER_PERIOD,
                "script calls per period at Redis: " + redisPerPeriod + " " + redisCalls);
        // And each release finds its lock still this lease's (a failure says how the others ended)
        long releasing = System.nanoTime();
        AtomicReferenceArray<Boolean> released = new AtomicReferenceArray<>(RENEWED_LEASES);
        BoundedInFlight.run(
                RENEWED_LEASES, IN_FLIGHT, 60, i -> leases.get(i).releaseAsync().thenAccept(ok -> released.set(i, ok)));
        Map<String, Integer> endings = new TreeMap<>();
        for (int i = 0; i < RENEWED_LEASES; i++) {
            Lease lease = leases.get(i);
            String ending = released.get(i)
                    ? "released"
                    : lease.state() == LeaseState.LOST
                            ? "told lost "
                                    + (lease.lost().isDone()
                                            ? lease.lost().join().reason()
                                            : "(signal on its way)")
                            : "found gone at release";
            endings.merge(ending, 1, Integer::sum);
        }
        report(
                "renewal",
                String.format(
                        "released in %d ms; leases ended %s",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasing), endings));
        assertEquals(Map.of("released", RENEWED_LEASES), endings, "how the leases ended");
    }

    /** Reads every lease's lock key in one script: present, and holding the lease's own token (unique per acquisition, G3). */
    private void assertKeysHeldBy(LockBackend backend, AtomicReferenceArray<Lease> leases) throws Exception {
        List<String> keys = new ArrayList<>(leases.length());
        for (int i = 0; i < leases.length(); i++) {
            keys.add(LockKeys.lockKey(
                    LockClient.Builder.DEFAULT_KEY_PREFIX, leases.get(i).lockName()));
        }
        LuaScript readAll = LuaScript.of(
                "load-read-keys",
                "local out = {} for i, key in ipairs(KEYS) do out[i] = redis.call('GET', key) or '' end return out");
        List<?> values = (List<?>) backend.eval(readAll, keys, List.of()).get(30, TimeUnit.SECONDS);
        for (int i = 0; i < leases.length(); i++) {
            String value = String.valueOf(values.get(i)); // "<owner>:<token>" or "<owner>:<token>:<seq>"
            String[] parts = value.split(":");
            assertTrue(
                    parts.length >= 2
                            && parts[1].equals(Long.toString(leases.get(i).fencingToken())),
                    "key " + keys.get(i) + " holds '" + value + "', not lease " + leases.get(i));
        }
    }

    @Test
    void shouldServeAThousandWaitersOfFourNodesOnceEachInTokenOrderWithoutPolling() throws Exception {
        List<LockClient> nodes = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            nodes.add(client(backend()));
        }
        String name = name("waited", 0);
        WaiterLog log = new WaiterLog(WAITERS);
        // Given the lock held, and 1,000 waiters queued on 4 nodes
        Lease gate = nodes.get(0).lock(name).acquire(LOADED_WAIT);
        CommandStats before = CommandStats.read(redis.server());
        CompletableFuture<?>[] served = new CompletableFuture<?>[WAITERS];
        for (int w = 0; w < WAITERS; w++) {
            int waiter = w;
            served[w] = nodes.get(w % NODES)
                    .lock(name)
                    .acquireAsync(Duration.ofMinutes(5))
                    .thenCompose(lease -> log.criticalSection(waiter, lease).releaseAsync());
        }
        Eventually.until(
                "all waiters queued",
                () -> nodes.stream()
                                .mapToInt(n -> EngineFootprint.of(n).acquisitions())
                                .sum()
                        == WAITERS);
        // When the holder releases
        long started = System.nanoTime();
        gate.release();
        // Then every waiter is served (none times out, none is left waiting), once, one at a time, in token order
        try {
            CompletableFuture.allOf(served).get(2, TimeUnit.MINUTES);
        } catch (TimeoutException stalled) {
            fail("waiters still waiting after 2 minutes (a lost wake-up?): served " + log.servedCount() + " of "
                    + WAITERS + "; footprints "
                    + nodes.stream().map(EngineFootprint::of).toList());
        }
        long elapsed = System.nanoTime() - started;
        CommandStats traffic = CommandStats.read(redis.server()).since(before);
        log.assertServedOnceEachInTokenOrderOneAtATime();
        assertTrue(
                log.maxGapNanos() < MAX_HANDOFF_GAP.toNanos(),
                "the lock sat free for " + Duration.ofNanos(log.maxGapNanos())
                        + " between two waiters (a lost wake-up?)");
        // And the traffic per acquisition is a small constant (no polling)
        double commands = (double) traffic.total() / WAITERS;
        double scripts = (double) traffic.scriptCalls() / WAITERS;
        report(
                "waiters",
                String.format(
                        "%d waiters on %d nodes served in %d ms (longest handoff %.1f ms): %.2f commands and"
                                + " %.2f script calls per acquisition; %s",
                        WAITERS,
                        NODES,
                        TimeUnit.NANOSECONDS.toMillis(elapsed),
                        log.maxGapNanos() / 1e6,
                        commands,
                        scripts,
                        traffic));
        assertTrue(commands <= MAX_COMMANDS_PER_ACQUISITION, "commands per acquisition: " + commands + " " + traffic);
        assertTrue(
                scripts <= MAX_SCRIPT_CALLS_PER_ACQUISITION,
                "script calls per acquisition: " + scripts + " " + traffic);
    }

    @Test
    void shouldLeaveNoPerNameStateAfterAHundredThousandNames() throws Exception {
        LockClient client = client(backend());
        LockClient other = client(backend());
        // Given 100,000 names, each acquired and released once
        long started = System.nanoTime();
        DistinctNamesLoad.acquireAndReleaseEach(client, DISTINCT_NAMES, IN_FLIGHT, i -> name("distinct", i));
        long pairsNanos = System.nanoTime() - started;
        // And 1,000 more, each waited for by another node while held (queues, subscriptions, lingering)
        DistinctNamesLoad.handOverEach(client, other, CONTENDED_NAMES, IN_FLIGHT, i -> name("contended", i));
        // Then, once the last subscription's linger passed, neither engine keeps anything per name
        DistinctNamesLoad.awaitIdle(client, other);
        // And Redis holds no lock and no subscription of theirs (the drivers dropped every channel)
        assertEquals(
                0L,
                redis.server()
                        .command(
                                "EVAL",
                                "return #redis.call('KEYS', ARGV[1])",
                                "0",
                                LockClient.Builder.DEFAULT_KEY_PREFIX + "{" + run + ":*}"),
                "lock keys left");
        Eventually.until(
                "no channel subscribed at Redis",
                () -> ((List<?>) redis.server().command("PUBSUB", "SHARDCHANNELS")).isEmpty()
                        && ((List<?>) redis.server().command("PUBSUB", "CHANNELS")).isEmpty());
        report(
                "names",
                String.format(
                        "%d names acquired and released in %d ms (%.0f pairs/s); footprints %s %s",
                        DISTINCT_NAMES,
                        TimeUnit.NANOSECONDS.toMillis(pairsNanos),
                        DISTINCT_NAMES / (pairsNanos / 1e9),
                        EngineFootprint.of(client),
                        EngineFootprint.of(other)));
    }

    private String name(String kind, int i) {
        return run + ":" + kind + ":" + i;
    }

    private void report(String scenario, String figures) {
        System.out.println("[load " + getClass().getSimpleName() + " " + scenario + "] " + figures);
    }
}
