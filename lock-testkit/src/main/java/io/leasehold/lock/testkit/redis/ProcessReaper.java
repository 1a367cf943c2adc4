package io.leasehold.lock.testkit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Stops every server the fixtures started when the JVM exits, so that a test run that crashes or
 * forgets to close a fixture leaves no {@code redis-server} behind. One shutdown hook serves all
 * servers; it is registered on first use. (A JVM killed with SIGKILL runs no hooks; nothing in
 * Java can help then.)
 *
 * <p>This class is threadsafe.
 */
final class ProcessReaper {

    private static final Set<AutoCloseable> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ProcessReaper::reapAll, "leasehold-redis-reaper"));
    }

    private ProcessReaper() {}

    static void register(AutoCloseable resource) {
        LIVE.add(resource);
    }

    static void unregister(AutoCloseable resource) {
        LIVE.remove(resource);
    }

    private static void reapAll() {
        List<AutoCloseable> all = new ArrayList<>(LIVE);
        for (AutoCloseable resource : all) {
            try {
                resource.close();
            } catch (Exception | Error e) {
                // Best effort at exit: keep stopping the others.
            }
        }
    }
}
