package io.leasehold.lock.testkit.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.testkit.driver.Eventually;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.RespClient;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each fault of the proxy against a real redis-server. Silence is shown by a read that times out (the
 * connection still open) and by Redis itself not having received the command; latency only by lower
 * bounds on elapsed time, never by upper ones.
 */
class FaultProxyTest {

    private static final Duration SILENCE_WINDOW = Duration.ofMillis(500);

    private static StandaloneRedis redis;
    private FaultProxy proxy;
    private final List<RawConnection> connections = new ArrayList<>();

    @BeforeAll
    static void startRedis() {
        redis = RedisFixtures.startStandalone();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void startProxy() {
        redis.server().command("FLUSHALL");
        proxy = FaultProxy.start(redis.endpoint());
    }

    @AfterEach
    void closeAll() throws IOException {
        for (RawConnection connection : connections) {
            connection.close();
        }
        proxy.close();
    }

    private RawConnection connect() throws IOException {
        RawConnection connection = RawConnection.open(proxy);
        connections.add(connection);
        return connection;
    }

    private RedisNode server() {
        return redis.server();
    }

    @Test
    void shouldForwardCommandsAndPipelinedRepliesInOrderWithoutFaults() throws IOException {
        RawConnection client = connect();
        assertEquals("OK", client.call("SET", "k", "v"));
        assertEquals("v", client.call("GET", "k"));
        assertEquals("v", server().command("GET", "k"), "the command reached the real server");

        for (int i = 0; i < 500; i++) {
            client.send("INCR", "n");
        }
        for (long i = 1; i <= 500; i++) {
            assertEquals(i, client.read());
        }
        assertEquals(1, proxy.openConnections());
        assertEquals("none", proxy.faults());
    }

    @Test
    void shouldDelayEveryRoundTripByTheLatencyOfBothDirections() throws IOException {
        RawConnection client = connect();
        assertEquals("PONG", client.call("PING"));

        proxy.latency(Duration.ofMillis(300));
        long started = System.nanoTime();
        assertEquals("PONG", client.call("PING"));
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertTrue(
                elapsedMillis >= 600,
                "300 ms each way must delay the round trip by at least 600 ms, but it took " + elapsedMillis + " ms");
        assertEquals("latency to-target PT0.3S, latency to-client PT0.3S", proxy.faults());
    }

    @Test
    void shouldDelayCommandsOnTheWayToTheTarget() throws IOException {
        RawConnection client = connect();
        proxy.latency(Direction.CLIENT_TO_TARGET, Duration.ofMillis(300));

        long started = System.nanoTime();
        assertEquals(1L, client.call("INCR", "k"));
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertTrue(elapsedMillis >= 300, "took only " + elapsedMillis + " ms");
    }

    @Test
    void shouldDelayRepliesOnlyWhenOnlyTheWayBackIsSlow() throws IOException {
        RawConnection client = connect();
        // Far longer than Eventually's deadline: if commands were delayed too, Redis would not see this one in time.
        proxy.latency(Direction.TARGET_TO_CLIENT, Duration.ofSeconds(60));

        client.send("INCR", "k");

        Eventually.until("Redis ran the INCR sent through the proxy", () -> "1".equals(server().command("GET", "k")));
        assertTrue(client.staysSilentFor(SILENCE_WINDOW), "the reply is still on its slow way back");
    }

    @Test
    void shouldKeepByteOrderWhileTheLatencyChangesUnderQueuedChunks() throws IOException {
        RawConnection client = connect();
        proxy.latency(Duration.ofMillis(200));
        for (int i = 0; i < 100; i++) {
            client.send("INCR", "n");
        }
        // Chunks read from now on are due sooner than the ones queued before: they must still wait their turn.
        proxy.latency(Duration.ZERO);
        for (int i = 0; i < 100; i++) {
            client.send("INCR", "n");
        }

        for (long i = 1; i <= 200; i++) {
            assertEquals(i, client.read());
        }
    }

    @Test
    void shouldHoldBothDirectionsDuringAPartitionAndDeliverInOrderAfterResume() throws IOException {
        RawConnection client = connect();
        assertEquals("PONG", client.call("PING"));

        proxy.partition();
        client.send("INCR", "k");
        client.send("INCR", "k");
        RawConnection during = connect();
        during.send("PING");

        assertTrue(client.staysSilentFor(SILENCE_WINDOW), "no reply during the partition, and no error");
        assertTrue(during.staysSilentFor(SILENCE_WINDOW), "a connection opened during the partition is silent too");
        assertNull(server().command("GET", "k"), "the held commands have not reached Redis");
        assertEquals(2, proxy.openConnections());
        assertEquals("to-target silenced (HOLD), to-client silenced (HOLD)", proxy.faults());

        proxy.resume();

        assertEquals(1L, client.read());
        assertEquals(2L, client.read());
        assertEquals("PONG", during.read());
        assertEquals("2", server().command("GET", "k"));
        assertEquals("none", proxy.faults());
    }

    @Test
    void shouldDropBytesDuringADroppingPartitionAndResetTheDamagedConnectionOnResume() throws IOException {
        RawConnection damaged = connect();
        RawConnection idle = connect();
        assertEquals("PONG", damaged.call("PING"));
        assertEquals("PONG", idle.call("PING"));

        proxy.partition(Silence.DROP);
        damaged.send("INCR", "k");
        int commandBytes = RespClient.encode(List.of("INCR", "k")).length;
        Eventually.until("the proxy dropped the INCR", () -> proxy.droppedBytes() == commandBytes);
        assertTrue(damaged.staysSilentFor(SILENCE_WINDOW));

        proxy.resume();

        assertThrows(IOException.class, damaged::read, "a connection that lost bytes is reset when the partition ends");
        assertNull(server().command("GET", "k"), "the dropped command never reached Redis");
        assertEquals("PONG", idle.call("PING"), "a connection that lost nothing stays up");
        assertEquals("PONG", connect().call("PING"));
    }

    @Test
    void shouldLetCommandsRunButHoldTheirRepliesWhenTheWayBackIsBlackholed() throws IOException {
        RawConnection client = connect();
        assertEquals("PONG", client.call("PING"));

        proxy.blackhole(Direction.TARGET_TO_CLIENT);
        client.send("INCR", "k");

        Eventually.until(
                "Redis ran the INCR whose reply is blackholed", () -> "1".equals(server().command("GET", "k")));
        assertTrue(client.staysSilentFor(SILENCE_WINDOW));

        proxy.resume();
        assertEquals(1L, client.read(), "the held reply arrives after resume");
    }

    @Test
    void shouldSilenceCommandsButDeliverPushedMessagesWhenTheWayToTheTargetIsBlackholed() throws IOException {
        RawConnection subscriber = connect();
        assertEquals(List.of("subscribe", "news", 1L), subscriber.call("SUBSCRIBE", "news"));

        proxy.blackhole(Direction.CLIENT_TO_TARGET);
        subscriber.send("PING");
        assertTrue(subscriber.staysSilentFor(SILENCE_WINDOW), "the PING never reaches Redis, so no pong comes");

        assertEquals(1L, server().command("PUBLISH", "news", "hello"));
        assertEquals(List.of("message", "news", "hello"), subscriber.read(), "Redis -> client still flows");

        proxy.resume();
        assertEquals(List.of("pong", ""), subscriber.read(), "the held PING runs after resume");
    }

    @Test
    void shouldResetEveryOpenConnectionWhenCutAndStillAcceptNewOnes() throws IOException {
        // Counted with one admin connection of its own each time, so "baseline" includes that one.
        long baseline = connectedClients();
        RawConnection first = connect();
        RawConnection second = connect();
        assertEquals("PONG", first.call("PING"));
        assertEquals("PONG", second.call("PING"));
        Eventually.until("Redis counts both proxied clients", () -> connectedClients() == baseline + 2);

        assertEquals(2, proxy.cutConnections());

        assertThrows(IOException.class, () -> first.call("PING"));
        assertThrows(IOException.class, () -> second.call("PING"));
        Eventually.until("Redis saw both proxied clients go", () -> connectedClients() == baseline);
        assertEquals(0, proxy.openConnections());
        assertEquals("PONG", connect().call("PING"), "new connections are accepted after a cut");
    }

    @Test
    void shouldResetNewConnectionsWhileRefusingButKeepOpenOnes() throws IOException {
        RawConnection open = connect();
        assertEquals("PONG", open.call("PING"));

        proxy.refuseNewConnections();
        // The reset may beat the end of the client's own connect, or come on its first call: either is a refusal.
        assertThrows(IOException.class, () -> connect().call("PING"));
        assertEquals("PONG", open.call("PING"), "an open connection is untouched");
        assertEquals("refusing new connections", proxy.faults());

        proxy.resume();
        assertEquals("PONG", connect().call("PING"));
        assertEquals(3, proxy.acceptedConnections());
    }

    @Test
    void shouldClearEveryFaultOnResume() throws IOException {
        proxy.latency(Direction.TARGET_TO_CLIENT, Duration.ofMillis(50))
                .blackhole(Direction.CLIENT_TO_TARGET)
                .refuseNewConnections();

        proxy.resume();

        assertEquals("none", proxy.faults());
        assertEquals("PONG", connect().call("PING"));
    }

    @Test
    void shouldResetTheClientWhenTheTargetIsDown() throws IOException {
        int closedPort;
        try (ServerSocket placeholder = new ServerSocket(0)) {
            closedPort = placeholder.getLocalPort();
        }
        try (FaultProxy nowhere = FaultProxy.start("127.0.0.1", closedPort)) {
            // The proxy accepts, fails to reach the target, and resets the client: that reset may
            // already fail the client's connect (the kernel completed the handshake, but on a busy
            // machine the client polls for its completion after the reset came), or its first call.
            assertThrows(IOException.class, () -> {
                try (RawConnection client = RawConnection.open(nowhere)) {
                    client.call("PING");
                }
            });
            Eventually.until("the failed connection is forgotten", () -> nowhere.openConnections() == 0);
        }
    }

    @Test
    void shouldStayConsistentWhileFaultsChangeFromAnotherThreadUnderLoad() throws Exception {
        int clients = 4;
        int commands = 300;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        CountDownLatch done = new CountDownLatch(clients);
        AtomicBoolean wrongOrder = new AtomicBoolean();
        try {
            List<Future<?>> results = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                String key = "counter-" + c;
                RawConnection client = connect();
                results.add(pool.submit(() -> {
                    try {
                        for (long i = 1; i <= commands; i++) {
                            client.send("INCR", key);
                            if (!Long.valueOf(i).equals(client.read())) {
                                wrongOrder.set(true);
                            }
                        }
                        return null;
                    } finally {
                        done.countDown();
                    }
                }));
            }
            // Toggle held partitions and latency as fast as possible until every client is through.
            int toggles = 0;
            while (done.getCount() > 0) {
                proxy.latency(Duration.ofMillis(toggles % 3)).partition();
                proxy.resume();
                toggles++;
                // Not a timing assumption: only leaves the clients some CPU on a two-core machine.
                java.util.concurrent.locks.LockSupport.parkNanos(200_000);
            }
            for (Future<?> result : results) {
                result.get(60, TimeUnit.SECONDS);
            }
            assertTrue(toggles > 0);
        } finally {
            pool.shutdownNow();
        }
        assertTrue(!wrongOrder.get(), "every client got its replies 1.." + commands + " in order");
        for (int c = 0; c < clients; c++) {
            assertEquals(String.valueOf(commands), server().command("GET", "counter-" + c));
        }
    }

    @Test
    void shouldStopListeningResetConnectionsAndLeaveNoThreadAfterClose() throws IOException {
        RawConnection client = connect();
        assertEquals("PONG", client.call("PING"));
        proxy.partition();
        client.send("PING");
        String prefix = "leasehold-fault-proxy-" + proxy.port();
        assertTrue(liveThreads(prefix) >= 5, "an acceptor and four threads for the connection");

        proxy.close();

        assertEquals(0, liveThreads(prefix), "threads left after close: " + Eventually.threadsNamed(prefix));
        assertThrows(IOException.class, client::read);
        assertThrows(ConnectException.class, () -> new Socket(proxy.host(), proxy.port()).close());
        IllegalStateException closed = assertThrows(IllegalStateException.class, proxy::resume);
        assertTrue(closed.getMessage().endsWith("[closed] is closed"), closed.getMessage());
        proxy.close();
    }

    @Test
    void shouldRejectBadArgumentsNamingTheParameterAndTheValue() {
        IllegalArgumentException negative =
                assertThrows(IllegalArgumentException.class, () -> proxy.latency(Duration.ofMillis(-5)));
        assertEquals("latency must not be negative, but was PT-0.005S", negative.getMessage());
        NullPointerException direction = assertThrows(NullPointerException.class, () -> proxy.blackhole(null));
        assertEquals("direction", direction.getMessage());
        IllegalArgumentException port =
                assertThrows(IllegalArgumentException.class, () -> FaultProxy.start("127.0.0.1", 0));
        assertEquals("targetPort must be between 1 and 65535, but was 0", port.getMessage());
    }

    private long connectedClients() {
        String info = (String) server().command("INFO", "clients");
        return info.lines()
                .filter(line -> line.startsWith("connected_clients:"))
                .mapToLong(line -> Long.parseLong(
                        line.substring("connected_clients:".length()).trim()))
                .findFirst()
                .orElseThrow();
    }

    private static long liveThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith(prefix) && thread.isAlive())
                .count();
    }
}
