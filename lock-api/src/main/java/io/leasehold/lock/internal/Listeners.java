package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Fans events out to the registered listeners, one event after another on the client's event
 * thread: never on a driver's I/O thread or the timer, so a slow listener delays other listeners'
 * events and nothing else. A listener that throws is ignored, so that observability can never break
 * locking.
 *
 * <p>This class is threadsafe.
 */
final class Listeners {

    private final List<LockEventListener> listeners;
    private final Executor events;

    Listeners(List<LockEventListener> listeners, Executor events) {
        this.listeners = List.copyOf(listeners);
        this.events = events;
    }

    void acquired(String name, long token, Duration waited) {
        each(l -> l.onAcquired(name, token, waited));
    }

    void acquireFailed(String name, LockException failure, Duration waited) {
        each(l -> l.onAcquireFailed(name, failure, waited));
    }

    void released(String name, long token, Duration held) {
        each(l -> l.onReleased(name, token, held));
    }

    void renewed(String name, long token) {
        each(l -> l.onRenewed(name, token));
    }

    void renewalFailed(String name, long token, Throwable cause) {
        each(l -> l.onRenewalFailed(name, token, cause));
    }

    void leaseLost(LeaseLoss loss) {
        each(l -> l.onLeaseLost(loss));
    }

    private void each(Consumer<LockEventListener> call) {
        if (listeners.isEmpty()) {
            return;
        }
        try {
            events.execute(() -> {
                for (LockEventListener listener : listeners) {
                    try {
                        call.accept(listener);
                    } catch (RuntimeException ignored) {
                        // A broken listener must not break locking or keep other listeners from the event.
                    }
                }
            });
        } catch (RejectedExecutionException closed) {
            // The client has closed: events after close are not reported.
        }
    }
}
