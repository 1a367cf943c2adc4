package io.leasehold.lock.internal;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Names Leasehold's threads {@code leasehold-<role>-<client>} (pools add {@code -<n>}) and makes them
 * daemons, so that a forgotten client never keeps a JVM alive and a thread dump says whose threads
 * they are.
 */
final class LeaseholdThreads implements ThreadFactory {

    private static final AtomicInteger CLIENTS = new AtomicInteger();
    private static final String PREFIX = "leasehold-";

    private final String name;
    private final boolean numbered;
    private final AtomicInteger count = new AtomicInteger();

    private LeaseholdThreads(String name, boolean numbered) {
        this.name = name;
        this.numbered = numbered;
    }

    /** A factory for one client's single thread of the given role. */
    static LeaseholdThreads forRole(String role, int clientId) {
        return new LeaseholdThreads(PREFIX + role + "-" + clientId, false);
    }

    /** A factory for one client's pool of the given role: threads are numbered. */
    static LeaseholdThreads forPool(String role, int clientId) {
        return new LeaseholdThreads(PREFIX + role + "-" + clientId, true);
    }

    static int nextClientId() {
        return CLIENTS.incrementAndGet();
    }

    /** Whether {@code thread} is a Leasehold thread of the given role (of any client). */
    static boolean isRole(Thread thread, String role) {
        return thread.getName().startsWith(PREFIX + role + "-");
    }

    @Override
    public Thread newThread(Runnable task) {
        Thread thread = new Thread(task, numbered ? name + "-" + count.incrementAndGet() : name);
        thread.setDaemon(true);
        return thread;
    }
}
