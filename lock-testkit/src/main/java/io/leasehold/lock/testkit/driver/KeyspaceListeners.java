package io.leasehold.lock.testkit.driver;

import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.RespClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a server slower per key written, as another application of a shared Redis can: keyspace
 * notifications on, and a client subscribed to many patterns. Every SET then publishes its events,
 * and each event is matched against every pattern, on the server's only command thread. Measured on
 * redis-server 7.0 with 100 patterns: a renewed lease cost about 2.5 times as much. Closing puts the
 * server back as it was.
 *
 * <p>Not threadsafe: opened and closed by one test.
 */
final class KeyspaceListeners implements AutoCloseable {

    private final RedisNode server;
    private final String eventsBefore;
    private final RespClient subscriber;

    /** Turns notifications on at {@code server} and subscribes {@code patterns} patterns that match no channel. */
    KeyspaceListeners(RedisNode server, int patterns) {
        if (patterns < 1) {
            throw new IllegalArgumentException("patterns must be at least 1, but was " + patterns);
        }
        this.server = server;
        List<?> config = (List<?>) server.command("CONFIG", "GET", "notify-keyspace-events");
        this.eventsBefore = String.valueOf(config.get(1));
        List<String> subscribe = new ArrayList<>(List.of("PSUBSCRIBE"));
        for (int i = 0; i < patterns; i++) {
            subscribe.add("no-such-channel-" + i + ":*");
        }
        try {
            subscriber = RespClient.connect(server.endpoint(), Duration.ofSeconds(10));
            // Reads the first confirmation only: the client says nothing more until it is closed.
            subscriber.call(subscribe);
        } catch (IOException e) {
            throw new UncheckedIOException("could not subscribe at " + server.endpoint(), e);
        }
        server.command("CONFIG", "SET", "notify-keyspace-events", "KEA");
    }

    @Override
    public void close() throws IOException {
        server.command("CONFIG", "SET", "notify-keyspace-events", eventsBefore);
        subscriber.close();
    }
}
