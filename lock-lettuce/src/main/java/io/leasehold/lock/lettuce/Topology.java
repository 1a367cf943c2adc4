package io.leasehold.lock.lettuce;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What differs between a standalone or Sentinel-managed server ({@link StandaloneTopology}) and a
 * cluster ({@link ClusterTopology}): how to connect, where a key lives, and which connections carry
 * this backend's subscriptions.
 *
 * <p>Implementations are threadsafe. No method blocks: connects are asynchronous.
 */
interface Topology {

    /** The user's client; the backend adds (and later removes) a connection listener, nothing else. */
    AbstractRedisClient client();

    /** How the servers are deployed, as far as this topology was told. */
    io.leasehold.lock.spi.Deployment deployment();

    /** Opens the connection scripts run on. */
    CompletableFuture<CommandConnection> connectCommands();

    /** Opens the connection subscriptions are made on. */
    CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connectPubSub();

    /**
     * Ends the connects still under way on threads of this topology (the backend is closing), so that
     * none outlives {@code close()}; a connection one of them opens anyway is closed. Asynchronous
     * connects run on the client's event loop and need nothing here.
     */
    void abandonConnects();

    /** The cluster slot of {@code key}; 0 outside a cluster. */
    int slot(String key);

    /**
     * Whether {@code handler}, which just (re)connected, carries subscriptions made on
     * {@code pubSub}: the connection itself, or in a cluster one of its per-node connections.
     */
    boolean carriesSubscriptions(
            RedisChannelHandler<?, ?> handler, StatefulRedisPubSubConnection<String, String> pubSub);

    /** Notes that {@code channel} is now subscribed on {@code pubSub} (a cluster remembers the node). */
    void subscribed(String channel, StatefulRedisPubSubConnection<String, String> pubSub);

    /** Forgets {@code channel}. */
    void unsubscribed(String channel);

    /**
     * Starts watching for topology changes that move subscribed channels to another node, reporting
     * the moved channels; a no-op outside a cluster. The returned handle stops the watch.
     */
    AutoCloseable watchMoves(StatefulRedisPubSubConnection<String, String> pubSub, Consumer<Set<String>> moved);
}
