package io.leasehold.lock.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** A callback executor that can be paused (tasks wait, in order) and resumed. */
final class GateExecutor implements Executor, AutoCloseable {

    private final ExecutorService threads;
    private final List<Runnable> parked = new ArrayList<>();
    private boolean paused; // guarded by parked

    GateExecutor(String threadName, int threads) {
        this.threads = Executors.newFixedThreadPool(threads, TestThreads.daemon(threadName));
    }

    @Override
    public void execute(Runnable task) {
        synchronized (parked) {
            if (paused) {
                parked.add(task);
                return;
            }
        }
        threads.execute(task);
    }

    void pause() {
        synchronized (parked) {
            paused = true;
        }
    }

    void resume() {
        List<Runnable> run;
        synchronized (parked) {
            paused = false;
            run = new ArrayList<>(parked);
            parked.clear();
        }
        run.forEach(threads::execute);
    }

    int parkedCount() {
        synchronized (parked) {
            return parked.size();
        }
    }

    @Override
    public void close() {
        resume();
        threads.shutdownNow();
    }
}
