package io.leasehold.lock.testkit.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One standalone Redis server: a local {@code redis-server} this fixture started, a
 * Testcontainers {@code redis:7} container, or an external server named by {@code REDIS_URL}
 * (which is flushed by the fixtures, never stopped). Get one from {@link RedisFixtures}.
 *
 * <p>This class is threadsafe.
 */
public final class StandaloneRedis implements RedisTopology {

    private static final Duration RESUME_TIMEOUT = Duration.ofSeconds(20);

    private final RedisNode server;
    private final String uri;
    private final AutoCloseable stop;

    StandaloneRedis(RedisNode server, String uri, AutoCloseable stop) {
        this.server = Objects.requireNonNull(server, "server");
        this.uri = Objects.requireNonNull(uri, "uri");
        this.stop = Objects.requireNonNull(stop, "stop");
    }

    /** Starts a local {@code redis-server} from {@code binary} on a free port. */
    public static StandaloneRedis start(RedisServerBinary binary) {
        RedisServerProcess process = RedisServerProcess.startServer(binary, "standalone", List.of());
        return new StandaloneRedis(process, process.endpoint().uri(), process);
    }

    /** The server. */
    public RedisNode server() {
        return server;
    }

    /** Where the server listens. */
    public RedisEndpoint endpoint() {
        return server.endpoint();
    }

    public String host() {
        return endpoint().host();
    }

    public int port() {
        return endpoint().port();
    }

    @Override
    public Kind kind() {
        return Kind.STANDALONE;
    }

    @Override
    public String uri() {
        return uri;
    }

    @Override
    public List<RedisEndpoint> clientEndpoints() {
        return List.of(endpoint());
    }

    @Override
    public List<RedisNode> servers() {
        return List.of(server);
    }

    @Override
    public List<RedisNode> masters() {
        return List.of(server);
    }

    @Override
    public RedisNode masterForKey(String key) {
        return server;
    }

    @Override
    public void pauseAll() {
        server.pause();
    }

    @Override
    public void resumeAll() {
        server.resume();
        Await.until(
                server.endpoint() + " to answer PING after resume",
                RESUME_TIMEOUT,
                () -> server.ping(Duration.ofSeconds(1)),
                () -> "it stays silent");
    }

    @Override
    public void restoreAll() {
        Map<RedisNode.Control, String> unsupported = server.unsupportedControls();
        if (!unsupported.containsKey(RedisNode.Control.PAUSE) && server.isPaused()) {
            resumeAll();
        }
        if (!unsupported.containsKey(RedisNode.Control.KILL_AND_RESTART) && !server.isRunning()) {
            server.restart();
        }
    }

    @Override
    public Map<RedisNode.Control, String> unsupportedControls() {
        return server.unsupportedControls();
    }

    @Override
    public void close() {
        try {
            stop.close();
        } catch (Exception e) {
            throw new RedisFixtureException("cannot stop " + this, e);
        }
    }

    @Override
    public String toString() {
        return "standalone Redis at " + endpoint();
    }
}
