package io.leasehold.lock.internal;

import io.leasehold.lock.Ticker;
import io.leasehold.lock.inmemory.ManualClock;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * A ticker over a {@link ManualClock} that, once armed, parks the thread that reads it from
 * inside a hand-out at a chosen call (the method a {@code handOut} calls that reads the ticker), so
 * that a test can act at that exact moment of a hand-out.
 */
final class PausingTicker implements Ticker {

    /**
     * A moment of the hand-out: the callee of a {@code handOut} method ({@code Acquisition}'s, outside
     * the machine's monitor, or {@code AcquisitionMachine}'s, inside it) whose ticker read parks the thread.
     */
    enum Point {
        /** lease.lossIfInvalid(): before the monitor, before the validity check. */
        LOSS_CHECK("Acquisition", "lossIfInvalid"),
        /** waited(), the argument of announceAcquired: inside the machine's monitor, before the announce. */
        IN_MONITOR("AcquisitionMachine", "waited"),
        /** lease.announceAcquired()'s own validity check: inside the monitor, the last read before the announce. */
        ANNOUNCE_CHECK("AcquisitionMachine", "announceAcquired"),
        /** end(): after the announce, the acquisition over, before the caller's future completes (queued waiters only). */
        AFTER_ANNOUNCE("AcquisitionMachine", "end");

        final String className;
        final String callee;

        Point(String simpleClassName, String callee) {
            this.className = "io.leasehold.lock.internal." + simpleClassName;
            this.callee = callee;
        }
    }

    private final ManualClock clock;
    private final String threadPrefix;
    private final AtomicReference<Point> armed = new AtomicReference<>();
    private volatile CountDownLatch reached = new CountDownLatch(1);
    private volatile CountDownLatch go = new CountDownLatch(1);

    PausingTicker(ManualClock clock, String threadPrefix) {
        this.clock = clock;
        this.threadPrefix = threadPrefix;
    }

    void arm(Point point) {
        reached = new CountDownLatch(1);
        go = new CountDownLatch(1);
        armed.set(point);
    }

    boolean awaitReached(long seconds) throws InterruptedException {
        return reached.await(seconds, TimeUnit.SECONDS);
    }

    void resume() {
        armed.set(null);
        go.countDown();
    }

    @Override
    public long read() {
        Point point = armed.get();
        if (point != null
                && Thread.currentThread().getName().startsWith(threadPrefix)
                && at(point)
                && armed.compareAndSet(point, null)) {
            reached.countDown();
            try {
                go.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return clock.read();
    }

    private static boolean at(Point point) {
        List<StackWalker.StackFrame> frames =
                StackWalker.getInstance().walk(s -> s.limit(40).collect(Collectors.toList()));
        for (int i = 1; i < frames.size(); i++) {
            StackWalker.StackFrame f = frames.get(i);
            if (f.getMethodName().equals("handOut")
                    && f.getClassName().startsWith("io.leasehold.lock.internal.Acquisition")) {
                // the innermost hand-out frame: what it called
                return f.getClassName().equals(point.className)
                        && frames.get(i - 1).getMethodName().equals(point.callee);
            }
        }
        return false;
    }
}
