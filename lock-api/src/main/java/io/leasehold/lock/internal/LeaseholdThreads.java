package io.leasehold.lock.internal;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Names Leasehold's threads {@code leasehold-<role>-<client>} and makes them daemons, so that a
 * forgotten client never keeps a JVM alive and a thread dump says whose threads they are.
 */
final class LeaseholdThreads implements ThreadFactory {

    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final String name;

    private LeaseholdThreads(String name) {
        this.name = name;
    }

    /** A factory for one client's thread of the given role. */
    static LeaseholdThreads forRole(String role, int clientId) {
        return new LeaseholdThreads("leasehold-" + role + "-" + clientId);
    }

    static int nextClientId() {
        return CLIENTS.incrementAndGet();
    }

    @Override
    public Thread newThread(Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }
}
