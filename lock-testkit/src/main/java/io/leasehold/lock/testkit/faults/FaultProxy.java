package io.leasehold.lock.testkit.faults;

import io.leasehold.lock.testkit.redis.RedisEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * A TCP proxy for fault tests: it listens on a free loopback port, forwards every connection to a
 * target (a Redis server, or anything that speaks TCP), and injects network faults on command —
 * added latency, a partition, a one-way blackhole, cut connections, refused connections — until
 * {@link #resume()}. Pure Java: no external binary, no root, no {@code iptables}.
 *
 * <pre>{@code
 * try (StandaloneRedis redis = RedisFixtures.startStandalone();
 *      FaultProxy proxy = FaultProxy.start(redis.endpoint())) {
 *     RedisClient client = RedisClient.create(proxy.endpoint().uri());   // connect through the proxy
 *     ...
 *     proxy.latency(Duration.ofMillis(300));        // every chunk, both ways, 300 ms late
 *     proxy.partition();                            // silence both ways; connections stay open
 *     ...                                           // renewals get no reply: the lease must be lost in time
 *     proxy.resume();                               // held bytes flow again, in order
 *     proxy.cutConnections();                       // reset every open connection; new ones are accepted
 * }
 * }</pre>
 *
 * <p><b>What each fault does.</b> Faults combine; each call changes one and keeps the others, and
 * {@link #resume()} clears them all.
 * <ul>
 *   <li>{@link #latency(Direction, Duration) latency}: each chunk read from one side is written to
 *       the other no sooner than the latency after it arrived. Chunks keep their order, and a chunk
 *       keeps the latency in force when it arrived (a later change, {@code resume()} included, does
 *       not speed up or slow down bytes already in the proxy).</li>
 *   <li>{@link #partition(Silence) partition}: both directions silent; {@link #blackhole(Direction, Silence)
 *       blackhole}: one direction silent. The connections stay open, so the peers see silence, not an
 *       error: a client's reads time out. What happens to the bytes is the {@link Silence}: held and
 *       delivered in order when the fault ends ({@link Silence#HOLD}, the default, like TCP after a
 *       healed partition), or discarded with the damaged connections reset when the fault ends
 *       ({@link Silence#DROP}). Connections opened during a partition are accepted and silent too.</li>
 *   <li>{@link #cutConnections()}: resets (TCP RST) both sides of every open connection at once: the
 *       client sees "connection reset" or end of stream, the target sees its client go. New
 *       connections are accepted as usual.</li>
 *   <li>{@link #refuseNewConnections()}: every new connection is reset as soon as it is accepted,
 *       before any byte; open connections are untouched. (The client's connect itself may succeed, as
 *       the kernel completes it, and its first read or write fails: a true "connection refused" would
 *       need the listening socket closed, and another process could then take the port.)</li>
 * </ul>
 * A fault applies to every byte the proxy writes after the call returns; a chunk that a writer was
 * already writing at that moment still arrives (as a packet already on the wire would).
 *
 * <p><b>Threads.</b> Daemon threads named {@code leasehold-fault-proxy-<port>-...}: one accepts, and
 * each connection has four (a reader and a writer per direction, so that latency delays each chunk
 * by itself instead of adding up). {@link #close()} stops them all and returns only once they are
 * dead (within a bound).
 *
 * <p>This class is threadsafe: faults may be changed from any thread while traffic flows.
 */
public final class FaultProxy implements AutoCloseable {

    private static final long CLOSE_TIMEOUT_SECONDS = 10;
    private static final long ACCEPT_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final InetSocketAddress target;
    private final ServerSocket server;
    private final String threadPrefix;
    private final FaultBoard board = new FaultBoard();
    private final Threads threads = new Threads();
    private final Set<ProxiedConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionIds = new AtomicInteger();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong droppedBytes = new AtomicLong();
    private final Object lifecycle = new Object();
    private volatile boolean closed;

    private FaultProxy(InetSocketAddress target, ServerSocket server) {
        this.target = target;
        this.server = server;
        this.threadPrefix = "leasehold-fault-proxy-" + server.getLocalPort();
    }

    /**
     * Starts a proxy on a free loopback port ({@code 127.0.0.1}) that forwards to {@code targetHost:targetPort}.
     * The target need not be up yet: each connection connects to it when the client connects, and a
     * client whose target cannot be reached has its connection reset.
     *
     * @throws IllegalArgumentException when {@code targetPort} is not between 1 and 65535
     * @throws UncheckedIOException when no local port can be bound
     */
    public static FaultProxy start(String targetHost, int targetPort) {
        Objects.requireNonNull(targetHost, "targetHost");
        if (targetPort < 1 || targetPort > 65535) {
            throw new IllegalArgumentException("targetPort must be between 1 and 65535, but was " + targetPort);
        }
        ServerSocket server;
        try {
            server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot bind a loopback port for a FaultProxy to " + targetHost + ":" + targetPort + ": "
                            + e.getMessage(),
                    e);
        }
        FaultProxy proxy = new FaultProxy(new InetSocketAddress(targetHost, targetPort), server);
        proxy.threads.start(proxy.threadPrefix + "-acceptor", proxy::acceptLoop);
        return proxy;
    }

    /** Starts a proxy to a Redis server of the fixtures; see {@link #start(String, int)}. */
    public static FaultProxy start(RedisEndpoint target) {
        Objects.requireNonNull(target, "target");
        return start(target.host(), target.port());
    }

    /** The address clients connect to: {@code 127.0.0.1}. */
    public String host() {
        return server.getInetAddress().getHostAddress();
    }

    /** The port clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** Where clients connect, as a Redis endpoint: {@code endpoint().uri()} is {@code redis://127.0.0.1:<port>}. */
    public RedisEndpoint endpoint() {
        return new RedisEndpoint(host(), port());
    }

    /** Where the proxy forwards to. */
    public InetSocketAddress target() {
        return target;
    }

    /**
     * Delays every chunk in both directions by {@code latency} from now on; {@link Duration#ZERO}
     * removes the delay. A round trip then takes at least twice {@code latency}.
     *
     * @throws IllegalArgumentException when {@code latency} is negative
     */
    public FaultProxy latency(Duration latency) {
        long nanos = latencyNanos(latency);
        change(faults ->
                faults.withLatency(Direction.CLIENT_TO_TARGET, nanos).withLatency(Direction.TARGET_TO_CLIENT, nanos));
        return this;
    }

    /**
     * Delays every chunk in {@code direction} by {@code latency} from now on; see {@link #latency(Duration)}.
     *
     * @throws IllegalArgumentException when {@code latency} is negative
     */
    public FaultProxy latency(Direction direction, Duration latency) {
        Objects.requireNonNull(direction, "direction");
        long nanos = latencyNanos(latency);
        change(faults -> faults.withLatency(direction, nanos));
        return this;
    }

    /** Silences both directions, holding the bytes until {@link #resume()}: {@code partition(Silence.HOLD)}. */
    public FaultProxy partition() {
        return partition(Silence.HOLD);
    }

    /** Silences both directions; {@code silence} says whether the bytes are held or dropped (see {@link Silence}). */
    public FaultProxy partition(Silence silence) {
        Objects.requireNonNull(silence, "silence");
        change(faults -> faults.withSilence(Direction.CLIENT_TO_TARGET, silence)
                .withSilence(Direction.TARGET_TO_CLIENT, silence));
        return this;
    }

    /**
     * Silences one direction, holding its bytes until {@link #resume()}: e.g. {@code TARGET_TO_CLIENT}
     * lets commands reach Redis (and run) while their replies never come back.
     */
    public FaultProxy blackhole(Direction direction) {
        return blackhole(direction, Silence.HOLD);
    }

    /** Silences one direction; {@code silence} says whether its bytes are held or dropped. */
    public FaultProxy blackhole(Direction direction, Silence silence) {
        Objects.requireNonNull(direction, "direction");
        Objects.requireNonNull(silence, "silence");
        change(faults -> faults.withSilence(direction, silence));
        return this;
    }

    /** Resets every new connection as soon as it is accepted, until {@link #resume()}; open ones are untouched. */
    public FaultProxy refuseNewConnections() {
        change(faults -> faults.withRefusing(true));
        return this;
    }

    /**
     * Resets (TCP RST) both sides of every connection open now, discarding bytes the proxy still
     * holds for them. Faults in force stay; new connections are accepted (unless refused).
     *
     * @return how many connections were cut
     */
    public int cutConnections() {
        ensureOpen();
        List<ProxiedConnection> open = new ArrayList<>(connections);
        open.forEach(ProxiedConnection::abort);
        return open.size();
    }

    /**
     * Clears every fault: no latency for new chunks, both directions flow (held bytes are delivered
     * in order; connections that lost bytes to {@link Silence#DROP} are reset), new connections are
     * accepted.
     */
    public FaultProxy resume() {
        change(faults -> Faults.NONE);
        return this;
    }

    /** The faults in force, e.g. {@code "latency to-target PT0.3S, to-client silenced (HOLD)"} or {@code "none"}. */
    public String faults() {
        return board.current().describe();
    }

    /** How many proxied connections are open now. */
    public int openConnections() {
        return connections.size();
    }

    /**
     * How many bytes {@link Silence#DROP} has discarded since the proxy started: lets a test wait
     * until the traffic it sent was really dropped before it resumes.
     */
    public long droppedBytes() {
        return droppedBytes.get();
    }

    /** How many connections the proxy has accepted since it started, refused ones included. */
    public long acceptedConnections() {
        return accepted.get();
    }

    /**
     * Stops listening, resets every open connection and waits until all of the proxy's threads have
     * ended (at most {@value #CLOSE_TIMEOUT_SECONDS} s). Idempotent.
     *
     * @throws IllegalStateException when a proxy thread survived the bound (named in the message)
     */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            server.close();
        } catch (IOException e) {
            // The acceptor ends either way: accept() fails on a closed socket.
        }
        new ArrayList<>(connections).forEach(ProxiedConnection::abort);
        Set<String> alive;
        try {
            alive = threads.awaitAllDead(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (!alive.isEmpty()) {
            throw new IllegalStateException(
                    this + ": threads still alive " + CLOSE_TIMEOUT_SECONDS + " s after close: " + alive);
        }
    }

    @Override
    public String toString() {
        return "FaultProxy " + host() + ":" + port() + " -> " + target.getHostString() + ":" + target.getPort() + " ["
                + (closed ? "closed" : faults()) + "]";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                // Closed by close() (the loop ends), or a transient failure such as too many open files:
                // pause briefly rather than spin on it.
                if (!closed) {
                    LockSupport.parkNanos(ACCEPT_RETRY_NANOS);
                }
                continue;
            }
            accepted.incrementAndGet();
            if (board.current().refusing()) {
                ProxiedConnection.reset(client);
                continue;
            }
            try {
                client.setTcpNoDelay(true);
            } catch (IOException e) {
                ProxiedConnection.reset(client);
                continue;
            }
            String name = threadPrefix + "-c" + connectionIds.incrementAndGet();
            ProxiedConnection connection =
                    new ProxiedConnection(name, client, target, board, threads, droppedBytes, connections::remove);
            connections.add(connection);
            connection.start();
            if (closed) {
                // close() may have taken its list of connections before this one joined it.
                connection.abort();
            }
        }
    }

    private void change(UnaryOperator<Faults> change) {
        ensureOpen();
        Faults now = board.update(change);
        if (now.toTarget() != Silence.DROP && now.toClient() != Silence.DROP) {
            // No direction drops any more: a connection that lost bytes carries a broken stream; reset it.
            for (ProxiedConnection connection : connections) {
                if (connection.isDamaged()) {
                    connection.abort();
                }
            }
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private static long latencyNanos(Duration latency) {
        Objects.requireNonNull(latency, "latency");
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative, but was " + latency);
        }
        try {
            return latency.toNanos();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    "latency must be at most " + Duration.ofNanos(Long.MAX_VALUE) + ", but was " + latency, e);
        }
    }
}
