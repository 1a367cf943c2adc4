package io.leasehold.lock.testkit.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks ports for fixture servers. Ports come from {@code [11000, 22000)}: below the kernel's
 * ephemeral range (32768+ on Linux), so that no outgoing client connection can take a killed
 * server's port before it restarts, and low enough that a cluster bus port ({@code port + 10000})
 * stays below that range too. Ports handed out in this JVM stay reserved until released, and the
 * well-known ports 6379, 16379 and 26379 are never used (a developer's own Redis may run there).
 * Another process may still grab a port between the check and the server's bind; callers retry.
 *
 * <p>When the build runs test classes in several JVMs at once (Surefire's {@code forkCount}), each
 * JVM takes its own slice of the range, named by the system properties {@value #FORK_PROPERTY} (1 to
 * n, Surefire's {@code surefire.forkNumber}) and {@value #FORKS_PROPERTY} (n): a JVM whose test
 * kills a server and restarts it on the same port cannot lose that port to another JVM's fixture in
 * between. Without them, the whole range is this JVM's.
 *
 * <p>This class is threadsafe.
 */
final class FreePorts {

    private static final int LOW = 11000;
    private static final int HIGH = 22000;
    private static final int CLUSTER_BUS_OFFSET = 10000;
    private static final Set<Integer> FORBIDDEN = Set.of(6379, 16379, 26379);
    private static final Set<Integer> RESERVED = ConcurrentHashMap.newKeySet();
    static final String FORK_PROPERTY = "leasehold.testkit.fork";
    static final String FORKS_PROPERTY = "leasehold.testkit.forks";
    private static final Slice SLICE = Slice.of(System.getProperty(FORK_PROPERTY), System.getProperty(FORKS_PROPERTY));

    private FreePorts() {}

    /** Reserves a port that is free now (and whose cluster bus port is free too, when asked). */
    static int reserve(boolean withClusterBus) {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(SLICE.low(), SLICE.high());
            int bus = port + CLUSTER_BUS_OFFSET;
            if (FORBIDDEN.contains(port) || FORBIDDEN.contains(bus)) {
                continue;
            }
            if (!RESERVED.add(port)) {
                continue;
            }
            if (bindable(port) && (!withClusterBus || bindable(bus))) {
                return port;
            }
            RESERVED.remove(port);
        }
        throw new RedisFixtureException(
                "no free port in [" + SLICE.low() + ", " + SLICE.high() + ") after 1000 attempts");
    }

    static void release(int port) {
        RESERVED.remove(port);
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The part {@code [low, high)} of the port range that this JVM picks from. */
    record Slice(int low, int high) {

        static Slice of(String fork, String forks) {
            if (fork == null || forks == null || fork.isBlank() || forks.isBlank()) {
                return new Slice(LOW, HIGH);
            }
            int n = parse(FORKS_PROPERTY, forks);
            int k = parse(FORK_PROPERTY, fork);
            if (n < 1 || k < 1 || k > n) {
                throw new IllegalArgumentException(
                        FORK_PROPERTY + " must be in [1, " + FORKS_PROPERTY + "], but was " + fork + " of " + forks);
            }
            int width = (HIGH - LOW) / n;
            return new Slice(LOW + (k - 1) * width, LOW + k * width);
        }

        private static int parse(String property, String value) {
            try {
                return Integer.parseInt(value.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(property + " must be a whole number, but was '" + value + "'", e);
            }
        }
    }
}
