package io.leasehold.lock.internal;

/**
 * Interrupts the thread running a {@code callLocked} body when its lease is lost (G6), but never
 * after the body has returned: {@link #disarm()} and {@link #interrupt()} exclude each other.
 *
 * <p>This class is threadsafe.
 */
final class LossInterrupter {

    private final Thread worker;
    private boolean armed = true;
    private boolean fired;

    LossInterrupter(Thread worker) {
        this.worker = worker;
    }

    synchronized void interrupt() {
        if (armed) {
            fired = true;
            worker.interrupt();
        }
    }

    /** Stops future interrupts; returns whether one was delivered. */
    synchronized boolean disarm() {
        armed = false;
        return fired;
    }
}
