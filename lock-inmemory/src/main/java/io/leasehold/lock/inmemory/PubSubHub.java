package io.leasehold.lock.inmemory;

import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The sharded pub/sub of an {@link InMemoryLockBackend}: channels, their subscriptions, and one
 * daemon thread, {@value #THREAD_NAME}, that delivers messages in publish order — never on the
 * publisher's thread, which may be holding the store lock. A subscription registered before a
 * publish receives it; one cancelled before delivery does not.
 *
 * <p>This class is threadsafe.
 */
final class PubSubHub {

    static final String THREAD_NAME = "leasehold-inmemory-pubsub";
    private static final System.Logger LOG = System.getLogger(PubSubHub.class.getName());

    private final Map<String, List<Sub>> channels = new ConcurrentHashMap<>();
    private final DaemonThreads threads = new DaemonThreads(THREAD_NAME);
    /** Single thread, started on first use, so that a backend that never publishes starts none. */
    private final ExecutorService delivery =
            new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), threads);

    private volatile boolean closed;

    /** Registers {@code listener}; {@code onEnd} runs once when the subscription ends. */
    Subscription subscribe(String channel, MessageListener listener, Consumer<Subscription> onEnd) {
        Sub sub = new Sub(channel, listener, onEnd);
        // compute, not computeIfAbsent().add(): the list must not be dropped by a concurrent end().
        channels.compute(channel, (c, subs) -> {
            List<Sub> list = subs == null ? new CopyOnWriteArrayList<>() : subs;
            list.add(sub);
            return list;
        });
        if (closed) {
            sub.end();
        }
        return sub;
    }

    /** Queues {@code message} for every current subscriber of {@code channel}; returns how many. */
    int publish(String channel, String message) {
        List<Sub> subs = channels.get(channel);
        if (subs == null || subs.isEmpty()) {
            return 0;
        }
        List<Sub> receivers = List.copyOf(subs);
        submit(() -> receivers.forEach(sub -> sub.deliver(message)));
        return receivers.size();
    }

    /** Tells every subscription it was re-established, as a driver does after a reconnect. */
    void resubscribedAll() {
        List<Sub> all = channels.values().stream().flatMap(List::stream).toList();
        submit(() -> all.forEach(Sub::resubscribed));
    }

    /** Active subscriptions on {@code channel}. */
    int subscriberCount(String channel) {
        List<Sub> subs = channels.get(channel);
        return subs == null ? 0 : subs.size();
    }

    /** Ends every subscription and stops the delivery thread, waiting up to {@code timeoutMillis}. */
    void close(long timeoutMillis) {
        closed = true;
        channels.values().forEach(subs -> subs.forEach(Sub::end));
        delivery.shutdownNow();
        threads.awaitStopped(delivery, timeoutMillis);
    }

    private void submit(Runnable task) {
        try {
            delivery.execute(task);
        } catch (RejectedExecutionException closed) {
            // The backend is closing: subscriptions are ending and nobody is left to tell.
        }
    }

    private final class Sub implements Subscription {

        private final String channel;
        private final MessageListener listener;
        private final Consumer<Subscription> onEnd;
        private volatile boolean active = true;

        Sub(String channel, MessageListener listener, Consumer<Subscription> onEnd) {
            this.channel = channel;
            this.listener = listener;
            this.onEnd = onEnd;
        }

        @Override
        public String channel() {
            return channel;
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            end();
            return CompletableFuture.completedFuture(null);
        }

        void end() {
            synchronized (this) {
                if (!active) {
                    return;
                }
                active = false;
            }
            channels.computeIfPresent(channel, (c, subs) -> {
                subs.remove(this);
                return subs.isEmpty() ? null : subs;
            });
            onEnd.accept(this);
        }

        void deliver(String message) {
            if (active) {
                call(() -> listener.onMessage(channel, message), "onMessage");
            }
        }

        void resubscribed() {
            if (active) {
                call(() -> listener.onResubscribed(channel), "onResubscribed");
            }
        }

        private void call(Runnable callback, String what) {
            try {
                callback.run();
            } catch (RuntimeException e) {
                // A failing listener must not stop delivery to the others.
                LOG.log(System.Logger.Level.WARNING, "listener " + what + " failed on channel '" + channel + "'", e);
            }
        }

        @Override
        public String toString() {
            return "InMemorySubscription[" + channel + (active ? "" : ", ended") + "]";
        }
    }
}
