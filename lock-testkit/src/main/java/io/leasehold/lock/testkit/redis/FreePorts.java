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
 * <p>This class is threadsafe.
 */
final class FreePorts {

    private static final int LOW = 11000;
    private static final int HIGH = 22000;
    private static final int CLUSTER_BUS_OFFSET = 10000;
    private static final Set<Integer> FORBIDDEN = Set.of(6379, 16379, 26379);
    private static final Set<Integer> RESERVED = ConcurrentHashMap.newKeySet();

    private FreePorts() {}

    /** Reserves a port that is free now (and whose cluster bus port is free too, when asked). */
    static int reserve(boolean withClusterBus) {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOW, HIGH);
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
        throw new RedisFixtureException("no free port in [" + LOW + ", " + HIGH + ") after 1000 attempts");
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
}
