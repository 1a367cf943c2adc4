package io.leasehold.lock.testkit.faults;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * The faults in force, and the place where a pump's writer waits until a chunk may travel: until its
 * latency has passed and its direction is not held. A change of faults wakes every waiting writer at
 * once, so a resume releases held bytes without any polling.
 *
 * <p>This class is threadsafe.
 */
final class FaultBoard {

    /** What a writer does with the chunk it waited for. */
    enum Verdict {
        DELIVER,
        DROP
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile Faults faults = Faults.NONE;

    Faults current() {
        return faults;
    }

    /** Applies {@code change} and wakes every waiting writer; returns the faults now in force. */
    Faults update(UnaryOperator<Faults> change) {
        lock.lock();
        try {
            faults = change.apply(faults);
            changed.signalAll();
            return faults;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until a chunk due at {@code dueNanos} ({@link System#nanoTime()}) may be written in
     * {@code direction}. Returns {@link Verdict#DROP} at once when that direction drops, after
     * setting {@code damaged}: the flag is set under the same lock as {@link #update}, so whoever
     * changes the faults and then looks for damaged connections sees every drop made before.
     *
     * @throws InterruptedException when the connection is being closed
     */
    Verdict awaitTurn(Direction direction, long dueNanos, AtomicBoolean damaged) throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                Silence silence = faults.silence(direction);
                if (silence == Silence.DROP) {
                    damaged.set(true);
                    return Verdict.DROP;
                }
                if (silence == Silence.HOLD) {
                    changed.await();
                    continue;
                }
                long wait = dueNanos - System.nanoTime();
                if (wait <= 0) {
                    return Verdict.DELIVER;
                }
                changed.awaitNanos(wait);
            }
        } finally {
            lock.unlock();
        }
    }
}
