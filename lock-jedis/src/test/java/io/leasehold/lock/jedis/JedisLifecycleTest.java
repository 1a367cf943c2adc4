package io.leasehold.lock.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.Subscription;
import io.leasehold.lock.testkit.driver.Eventually;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** What the Jedis backend owns and what it leaves alone: the user's pool and client, its own threads. */
class JedisLifecycleTest {

    private static final LuaScript ECHO = LuaScript.of("echo", "return ARGV[1]");

    private static StandaloneRedis redis;
    private static RedisClient client;

    @BeforeAll
    static void start() {
        redis = RedisFixtures.sharedStandalone();
        client = JedisTestClients.redisClient(redis);
    }

    @AfterAll
    static void stop() {
        client.close();
    }

    @Test
    void shouldLeaveTheUsersClientUsableWhenClosed() throws Exception {
        JedisLockBackend backend = JedisLockBackend.create(client);
        backend.eval(ECHO, List.of("lifecycle:k"), List.of("x")).get(10, TimeUnit.SECONDS);
        backend.subscribe("lifecycle:{" + UUID.randomUUID() + "}", (c, m) -> {}).get(10, TimeUnit.SECONDS);

        backend.close();

        assertThat(client.ping()).isEqualTo("PONG");
        assertThat(client.getPool().getNumActive())
                .as("every borrowed connection is back")
                .isZero();
    }

    @Test
    void shouldBorrowOneSubscriberConnectionAndGiveItBackWhenTheLastListenerLeaves() throws Exception {
        try (JedisLockBackend backend = JedisLockBackend.create(client)) {
            List<Subscription> subscriptions = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                subscriptions.add(backend.subscribe("lifecycle:{" + UUID.randomUUID() + "}", (c, m) -> {})
                        .get(10, TimeUnit.SECONDS));
            }
            List<CompletableFuture<Object>> calls = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                calls.add(backend.eval(ECHO, List.of("lifecycle:k" + i), List.of("v" + i)));
            }
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
            assertThat(client.getPool().getNumActive())
                    .as("only the subscriber holds a connection between calls")
                    .isEqualTo(1);

            for (Subscription subscription : subscriptions) {
                subscription.unsubscribe().get(10, TimeUnit.SECONDS);
            }

            Eventually.until(
                    "the subscriber's connection is back in the pool",
                    () -> client.getPool().getNumActive() == 0);
            assertThat(client.ping()).as("the returned connection is clean").isEqualTo("PONG");
        }
    }

    @Test
    void shouldFailCallsAfterCloseAndCloseIdempotently() {
        JedisLockBackend backend = JedisLockBackend.create(client);
        backend.close();
        backend.close();

        assertThatThrownBy(() ->
                        backend.eval(ECHO, List.of("lifecycle:k"), List.of("x")).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(
                        () -> backend.subscribe("lifecycle:{c}", (c, m) -> {}).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void shouldReportARefusedConnectionWithItsRealCause() throws Exception {
        int unusedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            unusedPort = socket.getLocalPort();
        }
        try (RedisClient nowhere = RedisClient.create("127.0.0.1", unusedPort);
                LockClient locks = LockClient.create(JedisLockBackend.create(nowhere))) {
            // Jedis reports a refused connect as "Failed to connect to host:port." with the JDK's
            // ConnectException suppressed inside it: the message names the server, the cause is Jedis's.
            assertThatThrownBy(() -> locks.lock("lifecycle:nowhere").tryAcquire())
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("lifecycle:nowhere")
                    .hasMessageContaining("Failed to connect to 127.0.0.1:" + unusedPort)
                    .rootCause()
                    .isInstanceOf(JedisConnectionException.class)
                    .satisfies(cause ->
                            assertThat(cause.getSuppressed()).hasAtLeastOneElementOfType(ConnectException.class));
        }
    }

    @Test
    void shouldEndEveryThreadOfItsOwnWhenClosedEvenWhileTheServerNeverAnswers() throws Exception {
        Set<String> before = jedisThreads();
        try (ServerSocket silent = new ServerSocket(0); // accepts connections, never says a word
                RedisClient mute = RedisClient.builder()
                        .hostAndPort("127.0.0.1", silent.getLocalPort())
                        .clientConfig(DefaultJedisClientConfig.builder()
                                .socketTimeoutMillis(2000)
                                .connectionTimeoutMillis(2000)
                                .build())
                        .build()) {
            JedisLockBackend backend = JedisLockBackend.create(mute);
            CompletableFuture<Object> call = backend.eval(ECHO, List.of("k"), List.of("x"));
            CompletableFuture<Subscription> subscribing = backend.subscribe("lifecycle:{mute}", (c, m) -> {});

            long start = System.nanoTime();
            backend.close();

            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("close() is bounded")
                    .isLessThan(Duration.ofSeconds(10));
            Eventually.until(
                    "the backend's own threads have ended (new: " + newThreads(before) + ")",
                    () -> newThreads(before).isEmpty());
            assertThat(call).isCompletedExceptionally();
            assertThat(subscribing).isCompletedExceptionally();
        }
    }

    @Test
    void shouldBuildAWorkingLockClientInOneLineAndKeepTheClientWhenItCloses() {
        String name = "lifecycle:one-line:" + UUID.randomUUID();
        try (LockClient locks = JedisLockBackend.lockClient(client)) {
            Lease lease = locks.lock(name).acquire(Duration.ofSeconds(5));
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.release()).isTrue();
        }
        assertThat(client.ping()).isEqualTo("PONG");
    }

    @Test
    void shouldRefuseAPoolTooSmallForTheSubscriberAndTheScriptThreads() {
        try (RedisClient tiny = RedisClient.builder()
                .hostAndPort(redis.host(), redis.port())
                .poolConfig(JedisTestClients.pool(1))
                .build()) {
            JedisTestClients.assertRefusesAPoolOfOne(tiny);
        }
        assertThatThrownBy(() -> JedisLockBackend.create(client, 8))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("scriptThreads must be below the client's pool maxTotal of 8 (one connection stays for the"
                        + " subscriber), but was 8");
    }

    @Test
    void shouldHandTheLockToAWaiterOnASmallPoolAsSoonAsItIsReleased() throws Exception {
        // Given a waiter whose client's pool has 2 connections (the subscriber holds one while it waits)
        String name = "lifecycle:small-pool:" + UUID.randomUUID();
        try (RedisClient small = RedisClient.builder()
                        .hostAndPort(redis.host(), redis.port())
                        .poolConfig(JedisTestClients.pool(2))
                        .build();
                LockClient waiter = JedisLockBackend.lockClient(small);
                LockClient holder = JedisLockBackend.lockClient(client)) {
            Lease held = holder.lock(name).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = waiter.lock(name).acquireAsync(Duration.ofSeconds(30));
            Eventually.until("the waiter is subscribed", () -> small.getPool().getNumActive() == 1);

            // When the holder releases
            long releasedAt = System.nanoTime();
            assertThat(held.release()).isTrue();

            // Then the waiter gets the lock on the release message, not on a 30 s fallback or a failure
            Lease taken = waiting.get(20, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(10));
            assertThat(taken.release()).isTrue();
        }
    }

    @Test
    void shouldSendNoScriptAfterCloseWhileTheServerIsFrozen() throws Exception {
        // Given a fresh client (no pooled connection yet) whose calls wait for connections while Redis is frozen
        String prefix = "lifecycle:frozen-close:" + UUID.randomUUID() + ":";
        Set<String> before = jedisThreads();
        // (Jedis's socket timeout longer than the freeze, so that a connect waiting on the frozen server
        // completes once it runs again, after close() returned)
        try (RedisClient fresh = RedisClient.builder()
                .hostAndPort(redis.host(), redis.port())
                .clientConfig(DefaultJedisClientConfig.builder()
                        .socketTimeoutMillis(15_000)
                        .build())
                .build()) {
            JedisLockBackend backend = JedisLockBackend.create(fresh);
            backend.shardedPubSub().get(10, TimeUnit.SECONDS); // asks the server now, not while it is frozen
            LockClient locks = LockClient.builder(backend)
                    .closeTimeout(Duration.ofSeconds(1))
                    .build();
            locks.lock(prefix + "warm-up")
                    .acquire(Duration.ofSeconds(5))
                    .release(); // the scripts are cached: EVALSHA will do
            // (no idle pooled connection: a call sent on one before close() would be in flight, which no
            // close can take back; this test is about calls that had not been sent when close() returned)
            fresh.getPool().clear();
            redis.pauseAll();
            try {
                for (int i = 0; i < 6; i++) {
                    locks.lock(prefix + i).acquireAsync(Duration.ofSeconds(10));
                }
                // When the client is closed while they wait
                hold(Duration.ofMillis(300));
                locks.close();
            } finally {
                redis.resumeAll();
            }
            // Then, once Redis runs again, none of those acquisitions reaches it: no lock nobody owns
            Eventually.until(
                    "the backend's own threads have ended",
                    () -> newThreads(before).isEmpty());
            for (int i = 0; i < 6; i++) {
                assertThat(redis.server().command("EXISTS", "leasehold:{" + prefix + i + "}"))
                        .as("lock %d", i)
                        .isEqualTo(0L);
            }
            assertThat(fresh.ping()).isEqualTo("PONG");
        }
    }

    private static void hold(Duration duration) throws InterruptedException {
        Thread.sleep(
                duration.toMillis()); // lets the calls reach their (frozen) connects; not a race the test depends on
    }

    private static Set<String> newThreads(Set<String> before) {
        Set<String> now = jedisThreads();
        now.removeAll(before);
        return now;
    }

    private static Set<String> jedisThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(name -> name.startsWith("leasehold-jedis-"))
                .collect(Collectors.toSet());
    }
}
