package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockException;
import io.leasehold.lock.ReleaseUnconfirmedException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Fans events out to the registered listeners, and writes the engine's log lines, one event after
 * another on the client's event thread: never on a driver's I/O thread or the timer, so a slow
 * listener (or a slow log handler) delays other listeners' events and nothing else.
 *
 * <p>Frequent events (acquired, released, renewed, ...) cost nothing when no listener is registered;
 * the rare ones that are also logged (lost, uncertain, reconfirmed, release unconfirmed) go to the
 * event thread even then. A listener that throws is logged (see {@link EngineLog#listenerFailed})
 * and skipped for that event, so that observability can never break locking.
 *
 * <p><b>Bounded.</b> At most {@link #DEFAULT_BOUND} events wait for the event thread ({@link EventQueue});
 * past that, new events are dropped, counted, logged once and reported to the listeners
 * ({@link LockEventListener#onEventsDropped}), and the engine never waits. Events that pair up are
 * dropped whole, so that a listener never sees an ending without its start nor a start without its
 * ending: a lease whose {@code onAcquired} is dropped reports nothing more (its loss, or its release
 * Redis could not confirm, is still logged),
 * a wait whose {@code onWaitStarted} is dropped reports no {@code onWaitEnded} (waits carry no id, so
 * one of that name's later endings is skipped: the count per name stays right), an uncertainty whose
 * {@code onLeaseUncertain} is dropped reports no {@code onLeaseReconfirmed}. The endings of reported
 * starts are never dropped: there are at most as many as there are leases and waits alive.
 *
 * <p>This class is threadsafe; the failure counts are touched by the single event thread only.
 */
final class Listeners {

    /** How many events may wait for the event thread before new ones are dropped: about a megabyte of them. */
    static final int DEFAULT_BOUND = 10_000;

    private final List<LockEventListener> listeners;
    private final long[] failures;
    private final EventQueue queue;
    /** Leases whose {@code onAcquired} was dropped: none of their later events is reported. */
    private final Set<LeaseKey> unreportedLeases = ConcurrentHashMap.newKeySet();
    /** Leases whose {@code onLeaseUncertain} was dropped: its {@code onLeaseReconfirmed} is not reported. */
    private final Set<LeaseKey> unreportedUncertainty = ConcurrentHashMap.newKeySet();
    /** Per lock name, how many {@code onWaitStarted} were dropped: as many {@code onWaitEnded} are not reported. */
    private final ConcurrentMap<String, Integer> unreportedWaits = new ConcurrentHashMap<>();
    /** Whether the first drop was logged (touched by the event thread only). */
    private boolean dropsLogged;

    Listeners(List<LockEventListener> listeners, Executor events) {
        this(listeners, events, DEFAULT_BOUND);
    }

    Listeners(List<LockEventListener> listeners, Executor events, int bound) {
        this.listeners = List.copyOf(listeners);
        this.failures = new long[this.listeners.size()];
        this.queue = new EventQueue(events, bound, this::eventsDropped);
    }

    /** An acquisition's lease; {@code sinceReleaseSeen} (may be null) adds its {@code onHandoff}, right before. */
    void acquired(String name, long token, Duration waited, @Nullable Duration sinceReleaseSeen) {
        if (listeners.isEmpty()) {
            return;
        }
        boolean told = queue.offer(() -> {
            if (sinceReleaseSeen != null) {
                callAll("onHandoff", l -> l.onHandoff(name, token, sinceReleaseSeen));
            }
            callAll("onAcquired", l -> l.onAcquired(name, token, waited));
        });
        if (!told) {
            unreportedLeases.add(new LeaseKey(name, token));
        }
    }

    void acquireFailed(String name, LockException failure, Duration waited) {
        each("onAcquireFailed", l -> l.onAcquireFailed(name, failure, waited));
    }

    void acquireCancelled(String name, Duration waited) {
        each("onAcquireCancelled", l -> l.onAcquireCancelled(name, waited));
    }

    void waitStarted(String name) {
        if (!listeners.isEmpty() && !queue.offer(() -> callAll("onWaitStarted", l -> l.onWaitStarted(name)))) {
            unreportedWaits.merge(name, 1, Integer::sum);
        }
    }

    void waitEnded(String name, Duration waited) {
        if (!listeners.isEmpty() && !takeUnreportedWait(name)) {
            queue.put(() -> callAll("onWaitEnded", l -> l.onWaitEnded(name, waited)));
        }
    }

    void released(String name, long token, Duration held) {
        if (!listeners.isEmpty() && !leaseEnded(name, token)) {
            queue.put(() -> callAll("onReleased", l -> l.onReleased(name, token, held)));
        }
    }

    /** An ending in place of {@link #released}: logged always, reported if the lease was. */
    void releaseUnconfirmed(String name, long token, Duration held, ReleaseUnconfirmedException cause) {
        boolean reported = !leaseEnded(name, token);
        queue.put(() -> {
            EngineLog.releaseUnconfirmed(name, token, cause);
            if (reported) {
                callAll("onReleaseUnconfirmed", l -> l.onReleaseUnconfirmed(name, token, held, cause));
            }
        });
    }

    void renewed(String name, long token) {
        if (isReported(name, token)) {
            each("onRenewed", l -> l.onRenewed(name, token));
        }
    }

    void renewalFailed(String name, long token, Throwable cause) {
        if (isReported(name, token)) {
            each("onRenewalFailed", l -> l.onRenewalFailed(name, token, cause));
        }
    }

    void leaseUncertain(String name, long token, Duration validFor, Throwable cause) {
        boolean reported = isReported(name, token);
        boolean told = queue.offer(() -> {
            EngineLog.leaseUncertain(name, token, validFor, cause);
            if (reported) {
                callAll("onLeaseUncertain", l -> l.onLeaseUncertain(name, token, validFor, cause));
            }
        });
        if (!told) {
            unreportedUncertainty.add(new LeaseKey(name, token));
        }
    }

    void leaseReconfirmed(String name, long token) {
        if (!unreportedUncertainty.isEmpty() && unreportedUncertainty.remove(new LeaseKey(name, token))) {
            return; // its uncertainty was dropped, log line and all
        }
        boolean reported = isReported(name, token);
        queue.put(() -> {
            EngineLog.leaseReconfirmed(name, token);
            if (reported) {
                callAll("onLeaseReconfirmed", l -> l.onLeaseReconfirmed(name, token));
            }
        });
    }

    void leaseLost(LeaseLoss loss) {
        boolean reported = !leaseEnded(loss.lockName(), loss.fencingToken());
        queue.put(() -> {
            EngineLog.leaseLost(loss); // always: a loss is never silent
            if (reported) {
                callAll("onLeaseLost", l -> l.onLeaseLost(loss));
            }
        });
    }

    /** A one-off event, dropped when the queue is full. */
    private void each(String event, Consumer<LockEventListener> call) {
        if (!listeners.isEmpty()) {
            queue.offer(() -> callAll(event, call));
        }
    }

    /** Whether the lease's events reach the listeners: there are some, and its {@code onAcquired} was not dropped. */
    private boolean isReported(String name, long token) {
        return !listeners.isEmpty()
                && (unreportedLeases.isEmpty() || !unreportedLeases.contains(new LeaseKey(name, token)));
    }

    /** Forgets an ending lease; true if its {@code onAcquired} was dropped (then its ending is not reported either). */
    private boolean leaseEnded(String name, long token) {
        if (unreportedLeases.isEmpty() && unreportedUncertainty.isEmpty()) {
            return false;
        }
        LeaseKey key = new LeaseKey(name, token);
        unreportedUncertainty.remove(key);
        return unreportedLeases.remove(key);
    }

    /** Whether an {@code onWaitStarted} of {@code name} was dropped; if so, one fewer is left to skip. */
    private boolean takeUnreportedWait(String name) {
        if (unreportedWaits.isEmpty()) {
            return false;
        }
        boolean[] taken = {false};
        unreportedWaits.computeIfPresent(name, (key, count) -> {
            taken[0] = true;
            return count == 1 ? null : count - 1;
        });
        return taken[0];
    }

    /** On the event thread, once the queue has room again: tells the listeners how many events they missed. */
    private void eventsDropped(long count) {
        if (!dropsLogged) {
            dropsLogged = true;
            EngineLog.eventsDropped(count, queue.bound());
        }
        callAll("onEventsDropped", l -> l.onEventsDropped(count));
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

    /** A lease, by lock name and fencing token (unique per name). */
    private static final class LeaseKey {
        private final String name;
        private final long token;

        LeaseKey(String name, long token) {
            this.name = name;
            this.token = token;
        }

        @Override
        public boolean equals(@Nullable Object o) {
            return o instanceof LeaseKey && ((LeaseKey) o).token == token && ((LeaseKey) o).name.equals(name);
        }

        @Override
        public int hashCode() {
            return name.hashCode() * 31 + Long.hashCode(token);
        }
    }
}
