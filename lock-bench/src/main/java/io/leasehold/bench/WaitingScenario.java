package io.leasehold.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What waiting costs Redis: one worker holds a lock while {@code waiters} others (over the clients)
 * wait for it for the whole window; counts the round trips and commands the server saw meanwhile
 * (the holder's own renewal, if one falls in the window, included), per waiter and per 10 s.
 */
final class WaitingScenario implements Scenario {

    private static final String KEY = "bench:waited";
    private final int waiters;
    private final int clients;

    WaitingScenario(int waiters, int clients) {
        this.waiters = waiters;
        this.clients = clients;
    }

    @Override
    public String name() {
        return waiters + " waiters on a held lock, " + clients + " clients";
    }

    @Override
    public int clients() {
        return clients;
    }

    @Override
    public boolean appliesTo(Contender contender) {
        return contender.waits() && !contender.fair();
    }

    @Override
    public Measurement run(Contender contender, RedisProbe redis, Duration warmUp, Duration window) throws Exception {
        Contender.Worker holder = contender.worker(0);
        holder.acquire(KEY);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        RedisProbe.Snapshot before = redis.snapshot();
        for (int i = 0; i < waiters; i++) {
            Contender.Worker waiter = contender.worker((i + 1) % clients);
            Thread thread = new Thread(
                    () -> {
                        try {
                            waiter.acquire(KEY);
                            waiter.release();
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "bench-waiter-" + i);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        Thread.sleep(window.toMillis());
        RedisProbe.Snapshot used = redis.snapshot().minus(before);
        holder.release();
        for (Thread thread : threads) {
            thread.join(Duration.ofMinutes(1).toMillis());
            if (thread.isAlive()) {
                throw new IllegalStateException(
                        contender.name() + ": a waiter was not served within a minute of the release");
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException(contender.name() + " failed in '" + name() + "'", failure.get());
        }
        double per10s = 10.0 / (window.toMillis() / 1000.0);
        return Measurement.of(name(), contender.name())
                .put(Figures.CALLS_PER_WAITER, used.calls() * per10s / waiters)
                .put(Figures.COMMANDS_PER_WAITER, used.commands() * per10s / waiters)
                .build();
    }
}
