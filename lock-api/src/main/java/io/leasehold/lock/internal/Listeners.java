package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockException;
import io.leasehold.lock.ReleaseUnconfirmedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Fans events out to the registered listeners, and writes the engine's log lines, one event after
 * another on the client's event thread: never on a driver's I/O thread or the timer, so a slow
 * listener (or a slow log handler) delays other listeners' events and nothing else.
 *
 * <p>Frequent events (acquired, released, renewed, ...) cost nothing when no listener is registered;
 * the rare ones that are also logged (lost, uncertain, reconfirmed, release unconfirmed) always go to
 * the event thread. A
 * listener that throws is logged (see {@link EngineLog#listenerFailed}) and skipped for that event,
 * so that observability can never break locking.
 *
 * <p>This class is threadsafe; the failure counts are touched by the single event thread only.
 */
final class Listeners {

    private final List<LockEventListener> listeners;
    private final long[] failures;
    private final Executor events;

    Listeners(List<LockEventListener> listeners, Executor events) {
        this.listeners = List.copyOf(listeners);
        this.failures = new long[this.listeners.size()];
        this.events = events;
    }

    void acquired(String name, long token, Duration waited) {
        each("onAcquired", l -> l.onAcquired(name, token, waited));
    }

    void acquireFailed(String name, LockException failure, Duration waited) {
        each("onAcquireFailed", l -> l.onAcquireFailed(name, failure, waited));
    }

    void acquireCancelled(String name, Duration waited) {
        each("onAcquireCancelled", l -> l.onAcquireCancelled(name, waited));
    }

    void waitStarted(String name) {
        each("onWaitStarted", l -> l.onWaitStarted(name));
    }

    void waitEnded(String name, Duration waited) {
        each("onWaitEnded", l -> l.onWaitEnded(name, waited));
    }

    void handoff(String name, long token, Duration sinceReleaseSeen) {
        each("onHandoff", l -> l.onHandoff(name, token, sinceReleaseSeen));
    }

    void released(String name, long token, Duration held) {
        each("onReleased", l -> l.onReleased(name, token, held));
    }

    void releaseUnconfirmed(String name, long token, Duration held, ReleaseUnconfirmedException cause) {
        logged(
                () -> EngineLog.releaseUnconfirmed(name, token, cause),
                "onReleaseUnconfirmed",
                l -> l.onReleaseUnconfirmed(name, token, held, cause));
    }

    void renewed(String name, long token) {
        each("onRenewed", l -> l.onRenewed(name, token));
    }

    void renewalFailed(String name, long token, Throwable cause) {
        each("onRenewalFailed", l -> l.onRenewalFailed(name, token, cause));
    }

    void leaseUncertain(String name, long token, Duration validFor, Throwable cause) {
        logged(
                () -> EngineLog.leaseUncertain(name, token, validFor, cause),
                "onLeaseUncertain",
                l -> l.onLeaseUncertain(name, token, validFor, cause));
    }

    void leaseReconfirmed(String name, long token) {
        logged(
                () -> EngineLog.leaseReconfirmed(name, token),
                "onLeaseReconfirmed",
                l -> l.onLeaseReconfirmed(name, token));
    }

    void leaseLost(LeaseLoss loss) {
        logged(() -> EngineLog.leaseLost(loss), "onLeaseLost", l -> l.onLeaseLost(loss));
    }

    private void each(String event, Consumer<LockEventListener> call) {
        if (!listeners.isEmpty()) {
            enqueue(() -> callAll(event, call));
        }
    }

    private void logged(Runnable log, String event, Consumer<LockEventListener> call) {
        enqueue(() -> {
            log.run();
            callAll(event, call);
        });
    }

    private void enqueue(Runnable task) {
        try {
            events.execute(task);
        } catch (RejectedExecutionException closed) {
            // The client has closed: events after close are not reported.
        }
    }

    private void callAll(String event, Consumer<LockEventListener> call) {
        for (int i = 0; i < listeners.size(); i++) {
            LockEventListener listener = listeners.get(i);
            try {
                call.accept(listener);
            } catch (RuntimeException | LinkageError e) {
                // A broken listener must not break locking or keep other listeners from the event.
                EngineLog.listenerFailed(listener, event, ++failures[i], e);
            }
        }
    }
}
