package io.leasehold.lock.testkit;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** Thread factory and shutdown helper for the in-memory backend's daemon threads. */
final class DaemonThreads {

    private DaemonThreads() {
    }

    /** Daemon threads all named {@code name} (each executor using it runs a single thread). */
    static ThreadFactory named(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Waits for a shut-down {@code executor} to finish, unless the caller is its own thread (a
     * listener closing the backend), which would wait for itself.
     */
    static void awaitUnlessSelf(ExecutorService executor, String threadName, long timeoutMillis) {
        if (Thread.currentThread().getName().equals(threadName)) {
            return;
        }
        try {
            executor.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
