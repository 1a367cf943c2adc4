package io.leasehold.lock.inmemory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Makes the in-memory backend's daemon threads, all with one name, and remembers them so that
 * closing can wait until they have really ended — an executor reports termination a moment before
 * its last thread is dead, and "no thread left after close" must hold at once.
 *
 * <p>This class is threadsafe.
 */
final class DaemonThreads implements ThreadFactory {

    private final String name;
    private final List<Thread> created = new CopyOnWriteArrayList<>();

    DaemonThreads(String name) {
        this.name = name;
    }

    @Override
    public Thread newThread(Runnable runnable) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        created.add(thread);
        return thread;
    }

    /**
     * Waits up to {@code timeoutMillis} for the shut-down {@code executor} and every thread made
     * here to end, unless the caller is one of them (a listener closing the backend), which would
     * wait for itself; that thread ends as soon as its task returns.
     */
    void awaitStopped(ExecutorService executor, long timeoutMillis) {
        if (created.contains(Thread.currentThread())) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        try {
            executor.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
            for (Thread thread : created) {
                long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMillis > 0) {
                    thread.join(leftMillis);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
