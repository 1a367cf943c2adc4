package io.leasehold.lock.internal;

import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * One client's local waiters, per lock name (G7): a FIFO queue whose head alone contends, and one
 * release-channel subscription per name shared by the queue and reference-counted by its length.
 * A release message (or a resubscription after a reconnect) wakes the head; when the head leaves,
 * the next waiter becomes head and is woken.
 *
 * <p>This class is threadsafe. Queue changes happen inside the map's per-name compute, so that a
 * queue is never emptied and joined at once; message delivery takes only the queue's monitor and
 * never blocks the driver's I/O thread.
 */
final class WaitQueues {

    private final Engine engine;
    private final ConcurrentMap<String, Queue> queues = new ConcurrentHashMap<>();

    WaitQueues(Engine engine) {
        this.engine = engine;
    }

    /** Queues {@code waiter}; the future completes when the name's subscription is active. */
    CompletableFuture<Subscription> join(String name, Acquisition waiter) {
        Queue queue = queues.compute(name, (key, existing) -> {
            Queue q = existing != null ? existing : new Queue(name);
            q.add(waiter);
            return q;
        });
        return queue.subscription();
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
            emptied[0].unsubscribe();
        } else if (nextHead[0] != null) {
            nextHead[0].wake();
        }
    }

    boolean isHead(String name, Acquisition waiter) {
        Queue q = queues.get(name);
        return q != null && q.head() == waiter;
    }

    /** Waiters of every name, for close(). */
    List<Acquisition> allWaiters() {
        List<Acquisition> all = new ArrayList<>();
        queues.values().forEach(q -> all.addAll(q.snapshot()));
        return all;
    }

    /** Names with a live subscription (for tests and diagnostics). */
    int subscribedNames() {
        return queues.size();
    }

    /** One name's FIFO and its subscription. */
    private final class Queue implements MessageListener {

        private final String name;
        private final ArrayDeque<Acquisition> waiters = new ArrayDeque<>();
        private final CompletableFuture<Subscription> subscription;

        Queue(String name) {
            this.name = name;
            CompletableFuture<Subscription> subscribing;
            try {
                subscribing = engine.backend.subscribe(engine.channel(name), this);
            } catch (RuntimeException e) {
                subscribing = CompletableFuture.failedFuture(e);
            }
            this.subscription = subscribing;
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

        synchronized List<Acquisition> snapshot() {
            return new ArrayList<>(waiters);
        }

        CompletableFuture<Subscription> subscription() {
            return subscription;
        }

        void unsubscribe() {
            subscription.thenAccept(Subscription::unsubscribe);
        }

        @Override
        public void onMessage(String channel, String message) {
            wakeHead();
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
