package io.leasehold.lock.jedis;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The backend's own daemon threads, all named {@code leasehold-jedis-*} so that they can be told
 * apart from the application's. This class is threadsafe.
 */
final class BackendThreads {

    private static final AtomicInteger BACKENDS = new AtomicInteger();
    private static final long IDLE_SECONDS = 60;

    private BackendThreads() {}

    /** A number for the next backend, so that the threads of two backends have distinct names. */
    static int nextBackendNumber() {
        return BACKENDS.incrementAndGet();
    }

    /** Up to {@code threads} threads for blocking script calls; idle ones end after a minute; the queue is unbounded. */
    static ExecutorService scriptPool(String prefix, int threads) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                threads, threads, IDLE_SECONDS, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), numbered(prefix));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** One thread that runs tasks in the order given, and delayed tasks when due. */
    static ScheduledExecutorService single(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> daemon(task, name));
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }

    /** Starts {@code task} on a new daemon thread called {@code name}. */
    static void start(String name, Runnable task) {
        daemon(task, name).start();
    }

    private static ThreadFactory numbered(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> daemon(task, prefix + count.incrementAndGet());
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }
}
