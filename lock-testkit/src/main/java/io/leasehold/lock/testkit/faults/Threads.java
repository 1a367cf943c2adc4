package io.leasehold.lock.testkit.faults;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Starts a {@link FaultProxy}'s daemon threads and remembers them until they are dead, so that
 * {@link FaultProxy#close()} can wait for every one of them: a thread that is about to end is
 * still alive, and "no thread left after close" must hold as soon as close returns.
 *
 * <p>This class is threadsafe.
 */
final class Threads {

    private final Set<Thread> live = ConcurrentHashMap.newKeySet();

    Thread start(String name, Runnable body) {
        live.removeIf(thread -> !thread.isAlive());
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        live.add(thread);
        thread.start();
        return thread;
    }

    /** Waits up to {@code timeout} for every thread started here to end; returns the names of those still alive. */
    Set<String> awaitAllDead(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (Thread thread : live) {
            if (thread == Thread.currentThread()) {
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(thread, left);
            }
        }
        Set<String> alive = ConcurrentHashMap.newKeySet();
        for (Thread thread : live) {
            if (thread.isAlive() && thread != Thread.currentThread()) {
                alive.add(thread.getName());
            }
        }
        return alive;
    }
}
