package io.leasehold.lock.lettuce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockInfo;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import io.leasehold.lock.testkit.faults.Direction;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Adversarial tests of the local handoff (commits 1f6b6c8, 9eb9c58) against a real Redis with
 * Lettuce: the handoff's command delayed past the command timeout, its reply cut off, and a holder
 * process stopped (SIGSTOP) past its lease while its client's waiter queues.
 */
class LettuceHandoffAttackTest {

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;
    private final StandaloneRedis redis = RedisFixtures.sharedStandalone();

    private static RedisClient clientVia(FaultProxy proxy) {
        return RedisClient.create(
                LettuceTestClients.RESOURCES,
                RedisURI.builder()
                        .withHost(proxy.host())
                        .withPort(proxy.port())
                        .withTimeout(LettuceTestClients.LETTUCE_TIMEOUT)
                        .build());
    }

    private static void awaitQueued(CountingLockBackend counting) {
        Eventually.until(
                "the waiter tried, was contended and subscribed; " + counting,
                () -> counting.count(ScriptNames.ACQUIRE) >= 2 && counting.activeSubscriptions() >= 1);
    }

    private String get(String key) {
        Object value = redis.server().command("GET", key);
        return value == null ? null : value.toString();
    }

    /**
     * The handoff's command is delayed in the network past the command timeout: the holder's release
     * fails (its outcome unknown), and the waiter retries after the timeout with the same owner. On
     * Lettuce's single connection the retry runs after the delayed handoff, so it finds the lock
     * already its own and gets the lease at once (not after the holder's 30 s TTL). (With Jedis the
     * retry takes another connection and overtakes the handoff: see
     * HandoffFailureTest#shouldNotLeaveAWaiterAsleepWhileRedisHoldsTheLockForItAfterALateHandoff.)
     */
    @Test
    void shouldGiveTheWaiterTheLockWhenItsHandoffReachesRedisAfterTheCommandTimeout() throws Exception {
        String name = "lettuce-handoff:late-" + UUID.randomUUID();
        try (FaultProxy proxy = FaultProxy.start(redis.endpoint())) {
            RedisClient client = clientVia(proxy);
            CountingLockBackend counting = new CountingLockBackend(LettuceLockBackend.create(client));
            try (LockClient node = LockClient.builder(counting)
                    .commandTimeout(Duration.ofMillis(500))
                    .build()) {
                Lease held = node.lock(name).acquire(Duration.ofSeconds(10));
                CompletableFuture<Lease> waiting = node.lock(name).acquireAsync(Duration.ofSeconds(60));
                awaitQueued(counting);

                proxy.latency(Direction.CLIENT_TO_TARGET, Duration.ofMillis(1500));
                CompletableFuture<Boolean> released = held.releaseAsync();
                ExecutionException failure =
                        assertThrows(ExecutionException.class, () -> released.get(10, TimeUnit.SECONDS));
                assertInstanceOf(LockBackendException.class, failure.getCause());
                proxy.latency(Direction.CLIENT_TO_TARGET, Duration.ZERO); // the waiter's retry is not delayed

                Lease lease = waiting.get(10, TimeUnit.SECONDS); // its fallback (the holder's TTL) is 30 s away
                assertTrue(lease.fencingToken() > held.fencingToken());
                assertEquals(
                        Optional.of(lease.fencingToken()),
                        node.lock(name).inspect().map(LockInfo::fencingToken));
                assertTrue(lease.release());
                assertEquals(null, get(LockKeys.lockKey(PREFIX, name)));
            } finally {
                LettuceTestClients.shutdown(client);
            }
        }
    }

    /**
     * The handoff runs in Redis, but its reply is held back and then the connections are reset: the
     * waiter (time left) is not failed with a backend error (G9), gets the lock exactly once with a
     * higher token, and the holder's release reports true or its unknown outcome, never a loss.
     */
    @Test
    void shouldHandTheLockOverOnceWhenTheHandoffsReplyIsCutOff() throws Exception {
        String name = "lettuce-handoff:cut-" + UUID.randomUUID();
        String key = LockKeys.lockKey(PREFIX, name);
        try (FaultProxy proxy = FaultProxy.start(redis.endpoint())) {
            RedisClient client = clientVia(proxy);
            CountingLockBackend counting = new CountingLockBackend(LettuceLockBackend.create(client));
            List<String> lost = new CopyOnWriteArrayList<>();
            try (LockClient node = LockClient.builder(counting)
                    .commandTimeout(Duration.ofSeconds(3))
                    .listener(new io.leasehold.lock.LockEventListener() {
                        @Override
                        public void onLeaseLost(io.leasehold.lock.LeaseLoss loss) {
                            lost.add(loss.toString());
                        }
                    })
                    .build()) {
                Lease held = node.lock(name).acquire(Duration.ofSeconds(10));
                CompletableFuture<Lease> waiting = node.lock(name).acquireAsync(Duration.ofSeconds(60));
                awaitQueued(counting);

                // Replies held back (1 s: a new pooled connection's handshake still fits its 2 s socket timeout),
                // and once the handoff has run in Redis, every connection is reset: its reply is lost.
                proxy.latency(Direction.TARGET_TO_CLIENT, Duration.ofMillis(1000));
                CompletableFuture<Boolean> released = held.releaseAsync();
                Eventually.until("the handoff ran in Redis", () -> {
                    String value = get(key);
                    return value != null && !value.contains(":" + held.fencingToken());
                });
                proxy.cutConnections();
                proxy.resume();

                Lease lease = waiting.get(20, TimeUnit.SECONDS);
                assertTrue(lease.fencingToken() > held.fencingToken());
                assertEquals(
                        Optional.of(lease.fencingToken()),
                        node.lock(name).inspect().map(LockInfo::fencingToken));
                try {
                    assertTrue(released.get(20, TimeUnit.SECONDS), "the holder's release");
                } catch (ExecutionException unknownOutcome) {
                    assertInstanceOf(LockBackendException.class, unknownOutcome.getCause());
                }
                assertTrue(lease.release());
                assertEquals(null, get(key));
                assertTrue(lost.isEmpty(), "losses reported: " + lost);
            } finally {
                LettuceTestClients.shutdown(client);
            }
        }
    }

    /**
     * A holder process (its own JVM) with a queued waiter of its own is stopped (SIGSTOP) past its
     * 2 s lease; its lock expires in Redis and this process takes it. When the holder resumes, its
     * release (sent at once) must not hand the lock over: the lease is lost, this process's lock is
     * untouched and still valid, and the holder's waiter gets the lock only after this process
     * releases it, with a higher token (G1, G2, G6).
     */
    @Test
    void shouldNotHandTheLockOverFromAHolderProcessStoppedPastItsLease() throws Exception {
        String name = "lettuce-handoff:sigstop-" + UUID.randomUUID();
        String key = LockKeys.lockKey(PREFIX, name);
        String channel = LockKeys.releaseChannel(PREFIX, name);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process holder = new ProcessBuilder(
                        java,
                        "-cp",
                        classpath,
                        HandoffHolderProcess.class.getName(),
                        redis.host(),
                        Integer.toString(redis.port()),
                        name)
                .start();
        BlockingQueue<String> said = new LinkedBlockingQueue<>();
        List<String> errors = new CopyOnWriteArrayList<>();
        drain(holder.getInputStream(), said::add);
        drain(holder.getErrorStream(), errors::add);
        RedisClient client = RedisClient.create(LettuceTestClients.RESOURCES, RedisURI.create(redis.uri()));
        try (LockClient here = LockClient.create(LettuceLockBackend.create(client))) {
            long holderToken = Long.parseLong(next(said, "READY", errors).substring("READY ".length()));
            Eventually.until("the holder's own waiter subscribed", () -> shardSubscribers(channel) >= 1);

            signal("STOP", holder.pid());
            Eventually.until("the stopped holder's lock expired in Redis", () -> get(key) == null);
            Lease mine = here.lock(name).acquire(Duration.ofSeconds(10));
            assertTrue(mine.fencingToken() > holderToken);
            String mineOwnerAndToken = get(key).split(":")[0] + ":" + mine.fencingToken();
            OutputStream toHolder = holder.getOutputStream();
            toHolder.write("RELEASE\n".getBytes(StandardCharsets.UTF_8)); // read the moment it resumes
            toHolder.flush();
            signal("CONT", holder.pid());

            assertEquals("RELEASED false LOST", next(said, "RELEASED", errors), "the resumed holder's release");
            assertTrue(
                    get(key).startsWith(mineOwnerAndToken),
                    "this process's lock after the holder's release: " + get(key));
            assertTrue(mine.isValid());
            assertTrue(
                    said.stream().noneMatch(line -> line.startsWith("WAITER")),
                    "the holder's waiter while this process holds: " + said);
            assertTrue(mine.release());
            long waiterToken = Long.parseLong(next(said, "WAITER", errors).substring("WAITER ".length()));
            assertTrue(waiterToken > mine.fencingToken(), "the holder's waiter's token " + waiterToken);
            toHolder.write("RELEASE-WAITER\nEXIT\n".getBytes(StandardCharsets.UTF_8));
            toHolder.flush();
            assertEquals("WAITER-RELEASED true", next(said, "WAITER-RELEASED", errors));
            assertTrue(holder.waitFor(30, TimeUnit.SECONDS), "the holder process ends");
        } finally {
            signal("CONT", holder.pid());
            holder.destroyForcibly();
            LettuceTestClients.shutdown(client);
        }
    }

    private long shardSubscribers(String channel) {
        Object reply = redis.server().command("PUBSUB", "SHARDNUMSUB", channel);
        return Long.parseLong(((List<?>) reply).get(1).toString());
    }

    private static String next(BlockingQueue<String> said, String prefix, List<String> errors)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() - deadline < 0) {
            String line = said.poll(1, TimeUnit.SECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
        }
        throw new AssertionError("the holder process did not say " + prefix + "; its stderr: " + errors);
    }

    private static void drain(java.io.InputStream stream, java.util.function.Consumer<String> sink) {
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader in =
                            new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                        for (String line = in.readLine(); line != null; line = in.readLine()) {
                            sink.accept(line);
                        }
                    } catch (IOException ended) {
                        // the process ended
                    }
                },
                "handoff-holder-output");
        reader.setDaemon(true);
        reader.start();
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .redirectErrorStream(true)
                .start();
        kill.getInputStream().readAllBytes();
        kill.waitFor(10, TimeUnit.SECONDS);
    }
}
