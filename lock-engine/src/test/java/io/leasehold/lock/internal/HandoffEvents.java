package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records a client's lock events as {@code "<event> <token>"} strings, with the thread each ran on. */
final class HandoffEvents implements LockEventListener {

    final List<String> events = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();

    private void add(String event) {
        events.add(event);
        threads.add(Thread.currentThread().getName());
    }

    boolean lostReported(long token) {
        return events.stream().anyMatch(e -> e.startsWith("lost " + token + " "));
    }

    @Override
    public void onAcquired(String lockName, long fencingToken, Duration waited) {
        add("acquired " + fencingToken);
    }

    @Override
    public void onAcquireFailed(String lockName, LockException failure, Duration waited) {
        add("acquireFailed " + failure.getClass().getSimpleName());
    }

    @Override
    public void onAcquireCancelled(String lockName, Duration waited) {
        add("acquireCancelled");
    }

    @Override
    public void onHandoff(String lockName, long fencingToken, Duration sinceReleaseSeen) {
        add("handoff " + fencingToken);
    }

    @Override
    public void onReleased(String lockName, long fencingToken, Duration held) {
        add("released " + fencingToken);
    }

    @Override
    public void onLeaseLost(LeaseLoss loss) {
        add("lost " + loss.fencingToken() + " " + loss.reason());
    }

    @Override
    public String toString() {
        return events.toString();
    }
}
