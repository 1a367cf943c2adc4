package io.leasehold.lock.lettuce;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.Deployment;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import io.leasehold.lock.spi.support.DriverClients;
import io.leasehold.lock.spi.support.DriverFailures;
import io.leasehold.lock.spi.support.Failures;
import io.leasehold.lock.spi.support.PubSubChannels;
import io.leasehold.lock.spi.support.PubSubKind;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockBackend} over the application's own Lettuce client: a {@link RedisClient} for a
 * single server or a Sentinel-managed master ({@code redis-sentinel://} URIs), or a
 * {@link RedisClusterClient} for Redis Cluster.
 *
 * <pre>{@code
 * RedisClient redis = RedisClient.create("redis://localhost:6379");
 * try (LockClient locks = LettuceLockBackend.lockClient(redis)) {
 *     locks.lock("orders:42").runLocked(Duration.ofSeconds(5), () -> ship(order));
 * }
 * redis.shutdown(); // the client stays yours: closing Leasehold leaves it open
 *
 * // with settings of your own:
 * LockClient locks = LockClient.builder(LettuceLockBackend.create(clusterClient))
 *         .commandTimeout(Duration.ofSeconds(2))
 *         .build();
 * }</pre>
 *
 * <p><b>Connections.</b> The backend opens two connections from the client and shares them among
 * all calls: one for scripts (opened when the backend is created, asynchronously) and one for
 * pub/sub (opened when the first waiter subscribes); never one per call. A connect that fails is
 * retried by the next call. {@link #close()} closes these two and nothing else: the client, its
 * options and its resources remain the application's. The client's own settings (timeouts,
 * reconnect, topology refresh) apply to both connections unchanged.
 *
 * <p><b>Scripts</b> run by {@code EVALSHA}; when Redis answers {@code NOSCRIPT} (after a restart,
 * a failover or {@code SCRIPT FLUSH}) the call is sent once more with {@code EVAL}, which also
 * caches the script again.
 *
 * <p><b>Release notifications</b> use sharded pub/sub ({@code SSUBSCRIBE}, on the node that owns
 * the channel's slot) when the server is Redis 7 or later, plain pub/sub otherwise; the server is
 * asked ({@code INFO server}) when the script connection opens. Pub/sub callbacks run on Netty's
 * event loop and never block it. After the pub/sub connection (or, in a cluster, a node's
 * connection) reconnects, and after a cluster topology change moves a channel's slot, the backend
 * subscribes again and then calls {@link MessageListener#onResubscribed(String)} so that waiters
 * retry at once instead of waiting out the holder's lease. (In a cluster, Lettuce itself logs
 * {@code Re-subscribe failed: CROSSSLOT} when a node connection that carried channels of several
 * slots reconnects; the backend then subscribes those channels one by one.)
 *
 * <p>This class is threadsafe.
 *
 * @see LockClient#create(LockBackend)
 */
public final class LettuceLockBackend implements LockBackend {

    /** How long {@link #close()} waits for the two connections to close. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final Topology topology;
    private final ScriptExecutor scripts = new ScriptExecutor();
    private final LazyConnection<CommandConnection> commands;
    private final LazyConnection<StatefulRedisPubSubConnection<String, String>> pubSub;
    private final PubSubChannels channels;
    private final ReconnectListener reconnects;
    private final AtomicReference<@Nullable AutoCloseable> moveWatch = new AtomicReference<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Completes once {@link #closeAsync()} has closed both connections. */
    private final CompletableFuture<Void> closedFuture = new CompletableFuture<>();
    /** Sharded or plain pub/sub: decided once, when the first script connection asked the server. */
    private final PubSubKind pubSubKind = new PubSubKind();

    private LettuceLockBackend(Topology topology) {
        this.topology = topology;
        this.commands = new LazyConnection<>(
                "the script connection",
                () -> topology.connectCommands().thenCompose(this::probeServer),
                c -> c.connection().closeAsync());
        this.pubSub = new LazyConnection<>(
                "the pub/sub connection", this::connectPubSub, StatefulRedisPubSubConnection::closeAsync);
        this.channels = new PubSubChannels("LettuceLockBackend", new PubSubWire());
        this.reconnects = new ReconnectListener(this::onConnected);
        topology.client().addListener(reconnects);
        commands.get(); // start connecting now; a failure is retried by the first call
    }

    /**
     * A backend over {@code client}'s default URI (the one it was created with, e.g.
     * {@code RedisClient.create("redis://host:6379")} or a {@code redis-sentinel://} URI).
     */
    public static LettuceLockBackend create(RedisClient client) {
        Objects.requireNonNull(client, "client must not be null");
        return new LettuceLockBackend(new StandaloneTopology(client, null));
    }

    /** A backend over {@code client}, connecting to {@code uri} (standalone or {@code redis-sentinel://}). */
    public static LettuceLockBackend create(RedisClient client, RedisURI uri) {
        Objects.requireNonNull(client, "client must not be null");
        Objects.requireNonNull(uri, "uri must not be null");
        return new LettuceLockBackend(new StandaloneTopology(client, uri));
    }

    /** A backend over a Redis Cluster. */
    public static LettuceLockBackend create(RedisClusterClient client) {
        Objects.requireNonNull(client, "client must not be null");
        return new LettuceLockBackend(new ClusterTopology(client));
    }

    /** A {@link LockClient} with default settings over {@link #create(RedisClient)}; closing it closes the backend. */
    public static LockClient lockClient(RedisClient client) {
        return DriverClients.createOwning(create(client));
    }

    /** A {@link LockClient} with default settings over {@link #create(RedisClient, RedisURI)}. */
    public static LockClient lockClient(RedisClient client, RedisURI uri) {
        return DriverClients.createOwning(create(client, uri));
    }

    /** A {@link LockClient} with default settings over {@link #create(RedisClusterClient)}. */
    public static LockClient lockClient(RedisClusterClient client) {
        return DriverClients.createOwning(create(client));
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        Objects.requireNonNull(script, "script must not be null");
        Objects.requireNonNull(keys, "keys must not be null");
        Objects.requireNonNull(args, "args must not be null");
        CompletableFuture<Object> result = new CompletableFuture<>();
        commands.get().whenComplete((connection, failure) -> {
            if (failure != null) {
                result.completeExceptionally(Failures.unwrap(failure));
                return;
            }
            scripts.run(connection.commands(), script, keys, args).whenComplete((reply, error) -> {
                if (error == null) {
                    result.complete(reply);
                } else {
                    result.completeExceptionally(error);
                }
            });
        });
        return result;
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        Objects.requireNonNull(channel, "channel must not be null");
        Objects.requireNonNull(listener, "listener must not be null");
        return channels.subscribe(channel, listener);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The server is asked ({@code INFO server}) when the script connection first opens, which
     * the backend starts at creation; this never blocks. While Redis cannot be reached, the future
     * fails with the connection's own failure (a refused connection, say), and the next call tries
     * again. A server that refuses {@code INFO} (some managed services do) gets plain pub/sub,
     * which every server has.
     */
    @Override
    public CompletableFuture<Boolean> shardedPubSub() {
        if (pubSubKind.isDecided()) {
            return CompletableFuture.completedFuture(pubSubKind.isSharded());
        }
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        commands.get().whenComplete((connection, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(Failures.unwrap(failure));
            } else {
                answer.complete(pubSubKind.isSharded());
            }
        });
        return answer;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Lettuce tells the two kinds apart by type: a {@link RedisCommandExecutionException} is the
     * server's error reply (transient only for the "not now" replies the default knows:
     * {@code LOADING}, {@code READONLY}, ...), while every other {@link RedisException} comes from the
     * client side of the connection (not connected, connection closed or reset, commands rejected
     * while disconnected, a timeout), and so is transient, as are the JDK's I/O errors and timeouts
     * and a command Lettuce cancelled when its connection dropped.
     */
    @Override
    public boolean isTransient(Throwable failure) {
        return DriverFailures.isTransient(failure, RedisCommandExecutionException.class, RedisException.class);
    }

    @Override
    public int slot(String key) {
        return topology.slot(Objects.requireNonNull(key, "key must not be null"));
    }

    /**
     * How many script calls found the script missing from Redis's cache ({@code NOSCRIPT}) and were
     * sent again with {@code EVAL}. A diagnostic: it grows after restarts, failovers and
     * {@code SCRIPT FLUSH}, by about one per script and server.
     */
    public long scriptFallbacks() {
        return scripts.fallbacks();
    }

    /**
     * Closes the two connections this backend opened (waiting up to five seconds, except on a Netty
     * thread) and stops listening to the client. The client stays open. Idempotent.
     */
    @Override
    public void close() {
        CompletableFuture<Void> closing = closeAsync();
        if (!onNettyThread()) {
            awaitQuietly(closing, CLOSE_WAIT);
        }
    }

    /**
     * Starts closing the two connections this backend opened and stops listening to the client,
     * without blocking; the future completes once both are closed. The client stays open.
     * Idempotent: a later call returns the first call's future.
     */
    @Override
    public CompletableFuture<Void> closeAsync() {
        if (!closed.compareAndSet(false, true)) {
            return closedFuture;
        }
        topology.client().removeListener(reconnects);
        stopMoveWatch();
        channels.close();
        // Before closing the connections: closing waits for a connect under way, which a server that
        // never answers would stretch to Lettuce's own timeout, on a thread of ours.
        topology.abandonConnects();
        CompletableFuture.allOf(pubSub.close(), commands.close())
                .whenComplete((ignored, failure) -> closedFuture.complete(null));
        return closedFuture;
    }

    /**
     * {@code CLUSTER} for a cluster client, {@code SENTINEL} for a {@code redis-sentinel://} URI given at
     * creation, {@code STANDALONE} for any other URI given, and {@code UNKNOWN} when the client's own
     * default URI is used (Lettuce does not show it).
     */
    @Override
    public Deployment deployment() {
        return topology.deployment();
    }

    @Override
    public String toString() {
        return "LettuceLockBackend{" + topology + (closed.get() ? ", closed" : "") + "}";
    }

    /** Asks the server whether it has sharded pub/sub, once; the connection is ready after that. */
    private CompletableFuture<CommandConnection> probeServer(CommandConnection connection) {
        if (pubSubKind.isDecided()) {
            return CompletableFuture.completedFuture(connection);
        }
        CommandArgs<String, String> section = new CommandArgs<>(StringCodec.UTF8).add("server");
        return connection
                .commands()
                .dispatch(CommandType.INFO, new StatusOutput<>(StringCodec.UTF8), section)
                .toCompletableFuture()
                .handle((info, failure) -> {
                    if (failure == null) {
                        pubSubKind.decideFromInfo(info);
                        return connection;
                    }
                    Throwable cause = Failures.unwrap(failure);
                    if (cause instanceof RedisCommandExecutionException) {
                        // INFO is disabled on some managed services; plain pub/sub works everywhere.
                        pubSubKind.decidePlain();
                        return connection;
                    }
                    connection.connection().closeAsync();
                    throw new CompletionException(cause);
                });
    }

    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
        return topology.connectPubSub().<StatefulRedisPubSubConnection<String, String>>thenApply(connection -> {
            connection.addListener(new Dispatcher());
            AutoCloseable watch = topology.watchMoves(connection, channels::resubscribe);
            moveWatch.set(watch);
            if (closed.get()) {
                stopMoveWatch();
            }
            return connection;
        });
    }

    /** A connection of the client came up: if it carries our subscriptions, subscribe again. */
    private void onConnected(RedisChannelHandler<?, ?> handler) {
        StatefulRedisPubSubConnection<String, String> connection = pubSub.now();
        if (connection != null && !closed.get() && topology.carriesSubscriptions(handler, connection)) {
            channels.resubscribe(channels.names());
        }
    }

    private void stopMoveWatch() {
        AutoCloseable watch = moveWatch.getAndSet(null);
        if (watch != null) {
            try {
                watch.close();
            } catch (Exception ignored) {
                // disposing an event-bus subscription does not fail in practice; nothing to do if it does
            }
        }
    }

    private static boolean onNettyThread() {
        return Thread.currentThread() instanceof FastThreadLocalThread;
    }

    private static void awaitQuietly(CompletableFuture<?> future, Duration limit) {
        try {
            future.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the caller reads the outcome from state, not from this wait
        }
    }

    /** Receives every message of the pub/sub connection (all nodes' in a cluster) on the event loop. */
    private final class Dispatcher extends RedisPubSubAdapter<String, String> {

        @Override
        public void message(String channel, String message) {
            channels.dispatch(channel, message);
        }

        @Override
        public void smessage(String channel, String message) {
            channels.dispatch(channel, message);
        }

        /**
         * Redis unsubscribes shard channels by itself when their slot moves to another node
         * (slot migration, failover); a channel that still has listeners is subscribed again.
         */
        @Override
        public void sunsubscribed(String channel, long count) {
            channels.unsubscribedByServer(channel);
        }
    }

    /** How {@link PubSubChannels} reaches Redis. */
    private final class PubSubWire implements PubSubChannels.Wire {

        @Override
        public CompletableFuture<Void> subscribe(String channel) {
            return ready().thenCompose(connection -> {
                RedisPubSubAsyncCommands<String, String> redis = connection.async();
                return (useSharded() ? redis.ssubscribe(channel) : redis.subscribe(channel)).toCompletableFuture();
            });
        }

        @Override
        public CompletableFuture<Void> unsubscribe(String channel) {
            return ready().thenCompose(connection -> {
                RedisPubSubAsyncCommands<String, String> redis = connection.async();
                return (useSharded() ? redis.sunsubscribe(channel) : redis.unsubscribe(channel)).toCompletableFuture();
            });
        }

        @Override
        public void subscribed(String channel) {
            StatefulRedisPubSubConnection<String, String> connection = pubSub.now();
            if (connection != null) {
                topology.subscribed(channel, connection);
            }
        }

        @Override
        public void unsubscribed(String channel) {
            topology.unsubscribed(channel);
        }

        @Override
        public void schedule(Runnable task, Duration delay) {
            try {
                topology.client()
                        .getResources()
                        .eventExecutorGroup()
                        .schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException clientShutDown) {
                // The application shut its client down: there is nothing left to resubscribe on.
            }
        }

        /** The pub/sub connection, once the script connection has learned which kind of pub/sub to use. */
        private CompletableFuture<StatefulRedisPubSubConnection<String, String>> ready() {
            return commands.get().thenCompose(ignored -> pubSub.get());
        }

        private boolean useSharded() {
            return pubSubKind.isSharded();
        }
    }
}
