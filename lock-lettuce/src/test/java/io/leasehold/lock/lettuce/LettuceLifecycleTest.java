package io.leasehold.lock.lettuce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.driver.Eventually;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The backend opens two connections, shares them, and closes only what it opened. */
class LettuceLifecycleTest extends StandaloneClientTest {

    private static final LuaScript ECHO = LuaScript.of("echo", "return ARGV[1]");

    @Test
    void shouldLeaveTheUsersClientAndConnectionsOpenWhenClosed() throws Exception {
        try (StatefulRedisConnection<String, String> users = client.connect()) {
            LettuceLockBackend backend = LettuceLockBackend.create(client);
            backend.eval(ECHO, List.of("lifecycle:k"), List.of("x")).get(10, TimeUnit.SECONDS);
            backend.subscribe("lifecycle:{" + UUID.randomUUID() + "}", (c, m) -> {})
                    .get(10, TimeUnit.SECONDS);

            backend.close();

            assertThat(users.sync().ping()).isEqualTo("PONG");
            try (StatefulRedisConnection<String, String> fresh = client.connect()) {
                assertThat(fresh.sync().ping()).isEqualTo("PONG");
            }
        }
    }

    @Test
    void shouldOpenOneScriptAndOnePubSubConnectionHoweverManyCallsAndCloseBoth() throws Exception {
        long before = connectedClients();
        LettuceLockBackend backend = LettuceLockBackend.create(client);
        List<CompletableFuture<?>> calls = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            calls.add(backend.eval(ECHO, List.of("lifecycle:k" + i), List.of("v" + i)));
        }
        for (int i = 0; i < 20; i++) {
            calls.add(backend.subscribe("lifecycle:{" + UUID.randomUUID() + "}", (c, m) -> {}));
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);

        assertThat(connectedClients() - before).isEqualTo(2);

        backend.close();
        Eventually.until("the backend's connections are closed", () -> connectedClients() == before);
    }

    @Test
    void shouldFailCallsAfterCloseAndCloseIdempotently() {
        LettuceLockBackend backend = LettuceLockBackend.create(client);
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
    void shouldReportAnUnreachableServerAsAFailedCallAndRetryOnTheNextCall() throws Exception {
        int unusedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            unusedPort = socket.getLocalPort();
        }
        RedisURI nowhere = RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(unusedPort)
                .withTimeout(Duration.ofSeconds(2))
                .build();
        try (LettuceLockBackend backend = LettuceLockBackend.create(client, nowhere)) {
            for (int attempt = 0; attempt < 2; attempt++) {
                assertThatThrownBy(() ->
                                backend.eval(ECHO, List.of("k"), List.of("x")).get(20, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause()
                        .isInstanceOf(RedisConnectionException.class);
            }
        }
    }

    @Test
    void shouldBuildALockClientWithoutWaitingForAnUnreachableServerAndReportTheRealCause() throws Exception {
        int unusedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            unusedPort = socket.getLocalPort();
        }
        RedisURI nowhere = RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(unusedPort)
                .withTimeout(Duration.ofSeconds(2))
                .build();
        long start = System.nanoTime();
        try (LockClient locks = LockClient.create(LettuceLockBackend.create(client, nowhere))) {
            Duration built = Duration.ofNanos(System.nanoTime() - start);
            // Building never asks Redis anything; a refused connection must not look like a slow server.
            assertThat(built).isLessThan(Duration.ofSeconds(2));
            assertThatThrownBy(() -> locks.lock("lifecycle:nowhere").tryAcquire())
                    .isInstanceOf(io.leasehold.lock.LockBackendException.class)
                    .hasRootCauseInstanceOf(java.net.ConnectException.class)
                    .hasMessageContaining("Connection refused");
            assertThatThrownBy(() -> locks.lock("lifecycle:nowhere").forceRelease())
                    .isInstanceOf(io.leasehold.lock.LockBackendException.class)
                    .hasRootCauseInstanceOf(java.net.ConnectException.class);
        }
    }

    @Test
    void shouldBuildALockClientWithoutWaitingForAServerThatNeverAnswers() throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) { // accepts connections, never says a word
            RedisURI mute = RedisURI.builder()
                    .withHost("127.0.0.1")
                    .withPort(silent.getLocalPort())
                    .withTimeout(Duration.ofSeconds(30))
                    .build();
            long start = System.nanoTime();
            try (LockClient locks = LockClient.builder(LettuceLockBackend.create(client, mute))
                    .commandTimeout(Duration.ofMillis(500))
                    .closeTimeout(Duration.ofSeconds(1))
                    .build()) {
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
                // And a call fails after its command timeout, as a backend failure, instead of hanging
                assertThatThrownBy(() -> locks.lock("lifecycle:mute").tryAcquire())
                        .isInstanceOf(io.leasehold.lock.LockBackendException.class)
                        .hasRootCauseInstanceOf(java.util.concurrent.TimeoutException.class);
            }
        }
    }

    @Test
    void shouldBuildAWorkingLockClientInOneLineAndKeepTheClientWhenItCloses() {
        String name = "lifecycle:" + UUID.randomUUID();
        try (LockClient locks = LettuceLockBackend.lockClient(client)) {
            try (Lease lease = locks.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(locks.lock(name).isLocked()).isTrue();
                assertThat(lease.fencingToken()).isPositive();
            }
            assertThat(locks.lock(name).isLocked()).isFalse();
        }
        try (LockClient again = LettuceLockBackend.lockClient(client, RedisURI.create(redis.uri()))) {
            assertThat(again.lock(name).tryAcquire()).isPresent();
        }
    }

    private static long connectedClients() {
        String list = (String) redis.server().command("CLIENT", "LIST");
        return list.lines().filter(line -> !line.isBlank()).count() - 1; // minus the admin connection asking
    }
}
