package io.leasehold.lock.testkit.redis;

import java.util.Objects;

/**
 * Where a Redis server (or a Sentinel) listens: a host and a port, as a driver's test needs them to
 * build its client.
 *
 * <p>This record is immutable and threadsafe.
 *
 * @param host the host name or address, e.g. {@code 127.0.0.1}
 * @param port the TCP port
 */
public record RedisEndpoint(String host, int port) {

    public RedisEndpoint {
        Objects.requireNonNull(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be between 1 and 65535, but was " + port);
        }
    }

    /** The endpoint as {@code redis://host:port}. */
    public String uri() {
        return "redis://" + this;
    }

    /** {@code host:port}. */
    @Override
    public String toString() {
        return host + ":" + port;
    }
}
