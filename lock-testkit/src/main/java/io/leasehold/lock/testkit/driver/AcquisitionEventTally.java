package io.leasehold.lock.testkit.driver;

import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockException;
import io.leasehold.lock.ReleaseUnconfirmedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A listener for tests that start many acquisitions of one client: counts their outcomes (acquired,
 * failed, cancelled) and wait events, so that a test can check that each acquisition it started (see
 * {@link #acquisitionStarted}) reported exactly one outcome and that every wait that started ended;
 * anything odd (a wait that ended before it started, dropped events) is kept in {@link #oddities}.
 * Threadsafe.
 */
public final class AcquisitionEventTally implements LockEventListener {

    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger acquired = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger cancelled = new AtomicInteger();
    private final AtomicInteger waitStarted = new AtomicInteger();
    private final AtomicInteger waitEnded = new AtomicInteger();
    private final AtomicInteger unconfirmed = new AtomicInteger();
    private final List<String> oddities = new CopyOnWriteArrayList<>();

    /** Called by the test for each acquisition it starts on the client. */
    public void acquisitionStarted() {
        started.incrementAndGet();
    }

    /** Whether every acquisition started has reported one outcome, and every wait that started has ended. */
    public boolean settled() {
        return outcomes() == started.get() && waitStarted.get() == waitEnded.get();
    }

    /** Acquired, failed and cancelled, together. */
    public int outcomes() {
        return acquired.get() + failed.get() + cancelled.get();
    }

    /** Releases the client could not confirm ({@code onReleaseUnconfirmed}). */
    public int unconfirmedReleases() {
        return unconfirmed.get();
    }

    /** What should never happen: a wait that ended before it started, events dropped. */
    public List<String> oddities() {
        return List.copyOf(oddities);
    }

    @Override
    public void onAcquired(String lockName, long fencingToken, Duration waited) {
        acquired.incrementAndGet();
    }

    @Override
    public void onAcquireFailed(String lockName, LockException failure, Duration waited) {
        failed.incrementAndGet();
    }

    @Override
    public void onAcquireCancelled(String lockName, Duration waited) {
        cancelled.incrementAndGet();
    }

    @Override
    public void onWaitStarted(String lockName) {
        waitStarted.incrementAndGet();
    }

    @Override
    public void onWaitEnded(String lockName, Duration waited) {
        if (waitEnded.incrementAndGet() > waitStarted.get()) {
            oddities.add("wait ended before it started");
        }
    }

    @Override
    public void onReleaseUnconfirmed(
            String lockName, long fencingToken, Duration held, ReleaseUnconfirmedException cause) {
        unconfirmed.incrementAndGet();
    }

    @Override
    public void onEventsDropped(long count) {
        oddities.add("events dropped: " + count);
    }

    @Override
    public String toString() {
        return "{started " + started + ", acquired " + acquired + ", failed " + failed + ", cancelled " + cancelled
                + ", wait started " + waitStarted + ", ended " + waitEnded + ", unconfirmed releases " + unconfirmed
                + "}";
    }
}
