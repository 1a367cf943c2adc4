package io.leasehold.lock.internal;

import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One client's local waiters, per lock name (G7): a FIFO queue whose head alone contends, and one
 * release-channel subscription per name shared by the queue, held exactly as long as someone waits.
 * A release message (or a resubscription after a reconnect) wakes the head; when the head leaves,
 * the next waiter becomes head and is woken.
 *
 * <p><b>Subscriptions never fail a waiter.</b> A subscribe that is slow or fails leaves the waiters
 * on their fallback retry (the holder's TTL); a failed subscribe is tried again with back-off while
 * someone waits, and one that completes after everybody left is unsubscribed at once, so nothing
 * stays subscribed when nobody waits.
 *
 * <p>This class is threadsafe. Queue changes happen inside the map's per-name compute, so that a
 * queue is never emptied and joined at once; message delivery takes only the queue's monitor and
 * never blocks the driver's I/O thread.
 */
final class WaitQueues {

    private static final long FIRST_RESUBSCRIBE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_RESUBSCRIBE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Engine engine;
    private final ConcurrentMap<String, Queue> queues = new ConcurrentHashMap<>();

    WaitQueues(Engine engine) {
        this.engine = engine;
    }

    /** Queues {@code waiter}; the first waiter of a name subscribes its release channel. */
    void join(String name, Acquisition waiter) {
        Queue[] created = new Queue[1];
        queues.compute(name, (key, existing) -> {
            Queue q = existing;
            if (q == null) {
                q = new Queue(name);
                created[0] = q;
            }
            q.add(waiter);
            return q;
        });
        if (created[0] != null) {
            created[0].subscribe();
        }
    }

    /** Removes {@code waiter}; wakes the next head, or drops the subscription when nobody waits. */
    void leave(String name, Acquisition waiter) {
        Queue[] emptied = new Queue[1];
        Acquisition[] nextHead = new Acquisition[1];
        queues.computeIfPresent(name, (key, q) -> {
            nextHead[0] = q.remove(waiter);
            if (q.isEmpty()) {
                emptied[0] = q;
                return null;
            }
            return q;
        });
        if (emptied[0] != null) {
            emptied[0].close();
        } else if (nextHead[0] != null) {
            nextHead[0].wake();
        }
    }

    boolean isHead(String name, Acquisition waiter) {
        Queue q = queues.get(name);
        return q != null && q.head() == waiter;
    }

    /** Names with waiters (for tests and diagnostics). */
    int waitedNames() {
        return queues.size();
    }

    /** One name's FIFO and its subscription. */
    private final class Queue implements MessageListener {

        private final String name;
        private final ArrayDeque<Acquisition> waiters = new ArrayDeque<>();
        // Subscription state, guarded by this.
        private boolean closed;
        private @Nullable Subscription active;
        private int failures;
        private EngineTimer.@Nullable Timeout retry;

        Queue(String name) {
            this.name = name;
        }

        synchronized void add(Acquisition waiter) {
            waiters.addLast(waiter);
        }

        /** Returns the new head if {@code waiter} was the head and someone is left. */
        synchronized @Nullable Acquisition remove(Acquisition waiter) {
            boolean wasHead = waiters.peekFirst() == waiter;
            waiters.remove(waiter);
            return wasHead ? waiters.peekFirst() : null;
        }

        synchronized boolean isEmpty() {
            return waiters.isEmpty();
        }

        synchronized @Nullable Acquisition head() {
            return waiters.peekFirst();
        }

        void subscribe() {
            CompletableFuture<Subscription> subscribing;
            try {
                subscribing = engine.backend.subscribe(engine.channel(name), this);
            } catch (RuntimeException e) {
                subscribing = CompletableFuture.failedFuture(e);
            }
            subscribing.whenComplete(this::onSubscribed);
        }

        private void onSubscribed(@Nullable Subscription subscription, @Nullable Throwable failure) {
            boolean unsubscribe = false;
            boolean wake = false;
            synchronized (this) {
                if (closed) {
                    unsubscribe = subscription != null; // everybody left while it was on its way
                } else if (failure != null || subscription == null) {
                    failures++;
                    long backoff = Math.min(FIRST_RESUBSCRIBE_NANOS << Math.min(failures - 1, 10), MAX_RESUBSCRIBE_NANOS);
                    retry = engine.timer.schedule(this::resubscribe, backoff);
                } else {
                    active = subscription;
                    failures = 0;
                    wake = true;
                }
            }
            if (unsubscribe) {
                subscription.unsubscribe();
            }
            if (wake) {
                wakeHead(); // a release published before the subscription was active would be missed
            }
        }

        private void resubscribe() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                retry = null;
            }
            subscribe();
        }

        /** Nobody waits any more: drop the subscription (now, or when a pending one completes). */
        void close() {
            Subscription toDrop;
            synchronized (this) {
                closed = true;
                toDrop = active;
                active = null;
                if (retry != null) {
                    retry.cancel();
                    retry = null;
                }
            }
            if (toDrop != null) {
                toDrop.unsubscribe();
            }
        }

        @Override
        public void onMessage(String channel, String message) {
            Acquisition head = head();
            if (head != null) {
                head.releaseSeen();
            }
        }

        @Override
        public void onResubscribed(String channel) {
            wakeHead(); // a release may have been published while the connection was down
        }

        private void wakeHead() {
            Acquisition head = head();
            if (head != null) {
                head.wake();
            }
        }

        @Override
        public String toString() {
            return "WaitQueue{" + name + "}";
        }
    }
}
