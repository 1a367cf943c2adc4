package io.leasehold.lock.inmemory;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The network faults of an {@link InMemoryLockBackend}, shared by all its nodes: unreachable,
 * slow (scripts, or subscribe confirmations), and replies that are lost after the command ran. (Data faults — expiring, deleting,
 * flushing keys — act on the store directly.)
 *
 * <p>This class is threadsafe.
 */
final class FaultSwitches {

    private final AtomicBoolean unavailable = new AtomicBoolean();
    private final AtomicInteger repliesToLose = new AtomicInteger();
    private volatile Duration latency = Duration.ZERO;
    private volatile Duration subscribeLatency = Duration.ZERO;

    boolean unavailable() {
        return unavailable.get();
    }

    /** Returns true when the backend was available until now. */
    boolean makeUnavailable() {
        return unavailable.compareAndSet(false, true);
    }

    /** Returns true when the backend was unavailable until now. */
    boolean makeAvailable() {
        return unavailable.compareAndSet(true, false);
    }

    Duration latency() {
        return latency;
    }

    void setLatency(Duration latency) {
        this.latency = notNegative("latency", latency);
    }

    Duration subscribeLatency() {
        return subscribeLatency;
    }

    void setSubscribeLatency(Duration latency) {
        this.subscribeLatency = notNegative("subscribeLatency", latency);
    }

    void loseNextReply() {
        repliesToLose.incrementAndGet();
    }

    /** Consumes one pending lost reply; true when the call now executing must not be answered. */
    boolean takeLostReply() {
        return repliesToLose.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }

    /** Clears both latencies, unavailability and pending lost replies; true when it ends unavailability. */
    boolean reset() {
        latency = Duration.ZERO;
        subscribeLatency = Duration.ZERO;
        repliesToLose.set(0);
        return makeAvailable();
    }

    static Duration notNegative(String parameter, Duration latency) {
        Objects.requireNonNull(latency, parameter);
        if (latency.isNegative()) {
            throw new IllegalArgumentException(parameter + " must not be negative, but was " + latency);
        }
        return latency;
    }
}
