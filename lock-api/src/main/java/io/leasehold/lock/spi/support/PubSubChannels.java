package io.leasehold.lock.spi.support;

import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The channels this backend listens on, each with its local listeners, over one pub/sub connection:
 * the first listener of a channel subscribes it, the last one to leave unsubscribes it, and a
 * message is handed to every listener of its channel.
 *
 * <p>A driver implements {@link Wire} (how one channel is subscribed and unsubscribed on its
 * connection) and calls {@link #dispatch} for every message, {@link #resubscribe} after its pub/sub
 * connection came back, and {@link #unsubscribedByServer} when Redis dropped a channel by itself;
 * this class does the bookkeeping that every driver needs.
 *
 * <p><b>Threads.</b> {@link #dispatch} may run on a driver's I/O thread and takes no lock: it reads a
 * concurrent map and copy-on-write lists. Subscribing, unsubscribing and resubscribing take a short
 * monitor so that the commands for one channel reach the {@link Wire} in the order the map changed;
 * the wire must keep that order on the connection (one channel always on one connection).
 *
 * <p><b>Reconnects.</b> {@link #resubscribe} subscribes the named channels again and, once Redis
 * confirms, tells their listeners {@link MessageListener#onResubscribed(String)}; a failed attempt is
 * retried with back-off for as long as the channel has listeners.
 *
 * <p>This class is threadsafe.
 */
public final class PubSubChannels {

    private static final System.Logger LOG = System.getLogger(PubSubChannels.class.getName());
    private static final Duration FIRST_RETRY = Duration.ofMillis(200);
    private static final Duration MAX_RETRY = Duration.ofSeconds(5);

    /**
     * How subscriptions reach Redis: the driver's pub/sub connection. Futures complete once Redis
     * confirmed the command; no method blocks.
     */
    public interface Wire {
        /** Subscribes {@code channel}; completes once Redis confirmed, fails with the connection's failure. */
        CompletableFuture<Void> subscribe(String channel);

        /** Unsubscribes {@code channel}; completes once Redis confirmed. */
        CompletableFuture<Void> unsubscribe(String channel);

        /** The channel is now subscribed (a cluster driver may want to remember where). */
        default void subscribed(String channel) {}

        /** The channel has no listeners any more. */
        default void unsubscribed(String channel) {}

        /** Runs {@code task} after {@code delay} on a thread that may block briefly; used for resubscribe back-off. */
        void schedule(Runnable task, Duration delay);
    }

    private final String owner;
    private final Wire wire;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private boolean closed; // guarded by lock

    /**
     * @param owner names the backend in errors, e.g. {@code "LettuceLockBackend"}
     * @param wire  how subscriptions reach Redis
     */
    public PubSubChannels(String owner, Wire wire) {
        this.owner = owner;
        this.wire = wire;
    }

    /** Adds {@code listener} to {@code channel}; completes once the channel's subscription is active. */
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        Registration registration = new Registration(channel, listener);
        Channel target;
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException(owner + " is closed"));
            }
            target = channels.get(channel);
            boolean first = target == null;
            if (first) {
                target = new Channel(channel);
                channels.put(channel, target);
            }
            target.registrations.add(registration);
            if (first) {
                Channel created = target;
                wire.subscribe(channel).whenComplete((ignored, failure) -> onFirstSubscribe(created, failure));
            }
        }
        return target.active.thenApply(ignored -> registration);
    }

    /** Hands {@code message} to every listener of {@code channel}. Never blocks. */
    public void dispatch(String channel, String message) {
        Channel target = channels.get(channel);
        if (target == null) {
            return;
        }
        for (Registration registration : target.registrations) {
            registration.deliver(message);
        }
    }

    /** Subscribes {@code names} again (after a reconnect or a move) and then tells their listeners. */
    public void resubscribe(Collection<String> names) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            for (String name : names) {
                Channel target = channels.get(name);
                if (target != null) {
                    resubscribe(target, FIRST_RETRY);
                }
            }
        }
    }

    /**
     * Redis confirmed an unsubscribe of {@code name}: ours (the channel has no listeners left, or
     * has new ones already being subscribed, which a resubscribe only repeats) or its own (the slot
     * moved away from the node); while the channel has listeners, subscribe it again.
     */
    public void unsubscribedByServer(String name) {
        if (channels.containsKey(name)) {
            resubscribe(List.of(name));
        }
    }

    /** Every channel with listeners now. */
    public List<String> names() {
        return new ArrayList<>(channels.keySet());
    }

    /** Fails pending subscriptions and drops every listener; sends nothing (the connection is closing). */
    public void close() {
        List<Channel> dropped;
        synchronized (lock) {
            closed = true;
            dropped = new ArrayList<>(channels.values());
            channels.clear();
        }
        for (Channel channel : dropped) {
            channel.registrations.forEach(Registration::deactivate);
            channel.active.completeExceptionally(new IllegalStateException(owner + " is closed"));
        }
    }

    private void onFirstSubscribe(Channel channel, Throwable failure) {
        if (failure == null) {
            if (channels.get(channel.name) == channel) {
                wire.subscribed(channel.name);
            }
            channel.active.complete(null);
            return;
        }
        synchronized (lock) {
            // Forget the channel so that the next subscribe tries again from scratch.
            channels.remove(channel.name, channel);
        }
        channel.registrations.forEach(Registration::deactivate);
        channel.active.completeExceptionally(Failures.unwrap(failure));
    }

    private void resubscribe(Channel channel, Duration retryDelay) {
        wire.subscribe(channel.name).whenComplete((ignored, failure) -> {
            if (channels.get(channel.name) != channel) {
                return; // unsubscribed meanwhile
            }
            if (failure == null) {
                wire.subscribed(channel.name);
                channel.active.complete(null);
                for (Registration registration : channel.registrations) {
                    registration.resubscribed();
                }
                return;
            }
            LOG.log(
                    System.Logger.Level.DEBUG,
                    () -> "resubscribe of " + channel.name + " failed, retrying in " + retryDelay,
                    failure);
            wire.schedule(
                    () -> {
                        synchronized (lock) {
                            if (!closed && channels.get(channel.name) == channel) {
                                resubscribe(channel, min(retryDelay.multipliedBy(2), MAX_RETRY));
                            }
                        }
                    },
                    retryDelay);
        });
    }

    private CompletableFuture<Void> unsubscribe(Registration registration) {
        synchronized (lock) {
            if (!registration.deactivate()) {
                return CompletableFuture.completedFuture(null);
            }
            Channel channel = channels.get(registration.channel);
            if (channel == null || !channel.registrations.remove(registration) || !channel.registrations.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            channels.remove(registration.channel);
            wire.unsubscribed(registration.channel);
            if (closed) {
                return CompletableFuture.completedFuture(null);
            }
            return wire.unsubscribe(registration.channel);
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** One channel: its listeners and whether Redis confirmed the subscription. */
    private static final class Channel {
        final String name;
        final List<Registration> registrations = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> active = new CompletableFuture<>();

        Channel(String name) {
            this.name = name;
        }
    }

    /** One listener on one channel; also the {@link Subscription} handed back. */
    private final class Registration implements Subscription {
        final String channel;
        final MessageListener listener;
        private final AtomicBoolean active = new AtomicBoolean(true);

        Registration(String channel, MessageListener listener) {
            this.channel = channel;
            this.listener = listener;
        }

        @Override
        public String channel() {
            return channel;
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            return PubSubChannels.this.unsubscribe(this);
        }

        /** Returns whether this call deactivated it (false when already inactive). */
        boolean deactivate() {
            return active.getAndSet(false);
        }

        void deliver(String message) {
            if (!active.get()) {
                return;
            }
            try {
                listener.onMessage(channel, message);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "message listener on " + channel + " failed", e);
            }
        }

        void resubscribed() {
            if (!active.get()) {
                return;
            }
            try {
                listener.onResubscribed(channel);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "resubscribe listener on " + channel + " failed", e);
            }
        }

        @Override
        public String toString() {
            return "Subscription{" + channel + (active.get() ? "" : ", inactive") + "}";
        }
    }
}
