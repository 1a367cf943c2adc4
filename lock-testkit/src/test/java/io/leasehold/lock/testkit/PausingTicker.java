package io.leasehold.lock.testkit;

import io.leasehold.lock.Ticker;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * A ticker over a {@link ManualClock} that, once armed, parks the thread that reads it from
 * inside {@code Acquisition.handOut} at a chosen call (the method handOut calls that reads the
 * ticker), so that a test can act at that exact moment of a hand-out.
 */
final class PausingTicker implements Ticker {

    /** The callee of {@code Acquisition.handOut} whose ticker read parks the thread. */
    enum Point {
        /** lease.lossIfInvalid(): before the monitor, before the validity check. */
        LOSS_CHECK("lossIfInvalid"),
        /** waited(), the argument of announceAcquired: inside the acquisition's monitor, before the announce. */
        IN_MONITOR("waited"),
        /** lease.announceAcquired()'s own validity check: inside the monitor, the last read before the announce. */
        ANNOUNCE_CHECK("announceAcquired"),
        /** finish(false): after the announce and phase DONE, before the caller's future completes (queued waiters only). */
        AFTER_ANNOUNCE("finish");

        final String callee;

        Point(String callee) {
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
            if (f.getClassName().equals("io.leasehold.lock.internal.Acquisition")
                    && f.getMethodName().equals("handOut")) {
                return frames.get(i - 1).getMethodName().equals(point.callee); // what handOut called
            }
        }
        return false;
    }
}
