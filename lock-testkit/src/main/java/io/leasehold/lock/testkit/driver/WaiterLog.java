package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.Lease;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The critical sections of many waiters on one lock, recorded in the order they began: who, with
 * which token, how many were inside at once, and a read-modify-write on a shared counter that a
 * second holder inside at the same time could spoil (a lost update).
 *
 * <p>This class is threadsafe.
 */
final class WaiterLog {

    private final AtomicIntegerArray servedTimes;
    private final ExclusiveSection section = new ExclusiveSection();
    private final List<Long> tokens = new ArrayList<>(); // guarded by itself, in the order sections began
    private volatile int updates; // read-modify-written inside the critical section only
    private volatile long lastEndNanos;
    private volatile long maxGapNanos;

    WaiterLog(int waiters) {
        this.servedTimes = new AtomicIntegerArray(waiters);
    }

    /** Runs waiter {@code waiter}'s critical section under {@code lease}, and returns the lease for its release. */
    Lease criticalSection(int waiter, Lease lease) {
        long start = System.nanoTime();
        section.enter(lease.fencingToken());
        synchronized (tokens) {
            if (!tokens.isEmpty()) {
                long gap = start - lastEndNanos;
                maxGapNanos = Math.max(maxGapNanos, gap);
            }
            tokens.add(lease.fencingToken());
        }
        servedTimes.incrementAndGet(waiter);
        int read = updates;
        Thread.yield(); // a second holder inside now would make one of the two updates be lost
        updates = read + 1;
        lastEndNanos = System.nanoTime();
        section.leave();
        return lease;
    }

    int servedCount() {
        synchronized (tokens) {
            return tokens.size();
        }
    }

    /** The longest time the lock sat between one critical section's end and the next one's start. */
    long maxGapNanos() {
        return maxGapNanos;
    }

    void assertServedOnceEachInTokenOrderOneAtATime() {
        for (int w = 0; w < servedTimes.length(); w++) {
            assertEquals(1, servedTimes.get(w), "times waiter " + w + " was served");
        }
        // One holder inside at a time, each with a token above every earlier one's
        assertEquals(List.of(), section.violations(), "critical sections");
        assertEquals(
                servedTimes.length(), updates, "updates of the shared counter (fewer: one was lost to an overlap)");
    }
}
