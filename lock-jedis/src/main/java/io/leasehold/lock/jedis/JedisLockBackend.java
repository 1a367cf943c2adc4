package io.leasehold.lock.jedis;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import io.leasehold.lock.spi.support.BlockingSubscriber;
import io.leasehold.lock.spi.support.DriverFailures;
import io.leasehold.lock.spi.support.Failures;
import io.leasehold.lock.spi.support.PubSubChannels;
import io.leasehold.lock.spi.support.PubSubKind;
import io.leasehold.lock.spi.support.ScriptFallback;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A {@link LockBackend} over the application's own Jedis 8 client: a {@link RedisClient} for a single
 * server, a {@link RedisSentinelClient} for a Sentinel-managed master, or a {@link RedisClusterClient}
 * for Redis Cluster.
 *
 * <pre>{@code
 * RedisClient redis = RedisClient.create("redis://localhost:6379");
 * try (LockClient locks = JedisLockBackend.lockClient(redis)) {
 *     locks.lock("orders:42").runLocked(Duration.ofSeconds(5), () -> ship(order));
 * }
 * redis.close(); // the client stays yours: closing Leasehold leaves it open
 * }</pre>
 *
 * <p><b>Threads.</b> Jedis blocks the calling thread, so scripts run on a bounded pool owned by the
 * backend ({@value #DEFAULT_SCRIPT_THREADS} daemon threads {@code leasehold-jedis-script-<backend>-<n>} by
 * default, matching Jedis's default pool of 8 connections; idle threads end after a minute), and
 * {@link #eval} never blocks its caller. Pub/sub runs on one daemon thread
 * {@code leasehold-jedis-pubsub-<backend>-<n>} per node (one outside a cluster), started by the first
 * waiter, and subscriptions are routed on one thread {@code leasehold-jedis-router-<backend>}. No user code runs on
 * any of them: the engine hands replies and messages on.
 *
 * <p><b>Connections.</b> Every connection is borrowed from the pool of your client; the backend opens
 * none beside it. A script call borrows one for the call. The subscriber of a node holds one while
 * it has channels (so set your pool's {@code maxTotal} at least one above your script threads), gives
 * it back when the last waiter leaves, and, when it drops, discards it, borrows a new one with
 * back-off, subscribes its channels again and tells the engine
 * ({@link MessageListener#onResubscribed(String)}), so that no waiter misses a release.
 * {@link #close()} stops the backend's threads and returns what it borrowed; the client stays yours.
 *
 * <p><b>Scripts</b> run by {@code EVALSHA}, falling back once to {@code EVAL} when Redis answers
 * {@code NOSCRIPT} (after a restart, a failover or {@code SCRIPT FLUSH}).
 *
 * <p><b>Release notifications</b> use sharded pub/sub ({@code SSUBSCRIBE}, on the node that serves the
 * channel's slot) when the server is Redis 7 or later, plain pub/sub otherwise; the server is asked
 * ({@code INFO server}) once.
 *
 * <p>This class is threadsafe.
 *
 * @see LockClient#create(LockBackend)
 */
public final class JedisLockBackend implements LockBackend {

    /** Script threads by default: Jedis's default connection pool has 8 connections. */
    public static final int DEFAULT_SCRIPT_THREADS = 8;

    /** How long {@link #close()} waits for the backend's threads to end. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final JedisTopology topology;
    private final UnifiedJedis jedis;
    private final ExecutorService scripts;
    private final ScheduledExecutorService router;
    private final ScriptFallback fallback = new ScriptFallback(failure -> failure instanceof JedisNoScriptException);
    private final PubSubKind pubSubKind = new PubSubKind();
    private final ChannelRouter channelRouter;
    private final PubSubChannels channels;
    private final int number;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CompletableFuture<Void> closedFuture = new CompletableFuture<>();

    private JedisLockBackend(JedisTopology topology, int scriptThreads) {
        if (scriptThreads < 1) {
            throw new IllegalArgumentException("scriptThreads must be at least 1, but was " + scriptThreads);
        }
        this.topology = topology;
        this.jedis = topology.client();
        int number = BackendThreads.nextBackendNumber();
        this.scripts = BackendThreads.scriptPool("leasehold-jedis-script-" + number + "-", scriptThreads);
        this.router = BackendThreads.single("leasehold-jedis-router-" + number);
        this.channelRouter = new ChannelRouter(topology, this::decideKind, router, "leasehold-jedis-pubsub-" + number + "-");
        this.number = number;
        this.channels = new PubSubChannels("JedisLockBackend", channelRouter);
        channelRouter.attach(channels);
    }

    /** A backend over a single server's client. */
    public static JedisLockBackend create(RedisClient client) {
        return create(client, DEFAULT_SCRIPT_THREADS);
    }

    /** A backend over a single server's client, running scripts on {@code scriptThreads} threads. */
    public static JedisLockBackend create(RedisClient client, int scriptThreads) {
        Objects.requireNonNull(client, "client must not be null");
        return new JedisLockBackend(new StandaloneJedisTopology(client), scriptThreads);
    }

    /** A backend over a Sentinel-managed master; it follows the master the client follows. */
    public static JedisLockBackend create(RedisSentinelClient client) {
        return create(client, DEFAULT_SCRIPT_THREADS);
    }

    /** A backend over a Sentinel-managed master, running scripts on {@code scriptThreads} threads. */
    public static JedisLockBackend create(RedisSentinelClient client, int scriptThreads) {
        Objects.requireNonNull(client, "client must not be null");
        return new JedisLockBackend(new SentinelJedisTopology(client), scriptThreads);
    }

    /** A backend over a Redis Cluster. */
    public static JedisLockBackend create(RedisClusterClient client) {
        return create(client, DEFAULT_SCRIPT_THREADS);
    }

    /** A backend over a Redis Cluster, running scripts on {@code scriptThreads} threads. */
    public static JedisLockBackend create(RedisClusterClient client, int scriptThreads) {
        Objects.requireNonNull(client, "client must not be null");
        return new JedisLockBackend(new ClusterJedisTopology(client), scriptThreads);
    }

    /** A {@link LockClient} with default settings over {@link #create(RedisClient)}; closing it closes the backend. */
    public static LockClient lockClient(RedisClient client) {
        return LockClient.create(create(client));
    }

    /** A {@link LockClient} with default settings over {@link #create(RedisSentinelClient)}. */
    public static LockClient lockClient(RedisSentinelClient client) {
        return LockClient.create(create(client));
    }

    /** A {@link LockClient} with default settings over {@link #create(RedisClusterClient)}. */
    public static LockClient lockClient(RedisClusterClient client) {
        return LockClient.create(create(client));
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        Objects.requireNonNull(script, "script must not be null");
        Objects.requireNonNull(keys, "keys must not be null");
        Objects.requireNonNull(args, "args must not be null");
        return fallback.run(script,
                sha -> onScriptThread(() -> JedisReplies.normalize(jedis.evalsha(sha, keys, args))),
                source -> onScriptThread(() -> JedisReplies.normalize(jedis.eval(source, keys, args))));
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
     * <p>The server is asked ({@code INFO server}) once, on a script thread; this never blocks. While
     * Redis cannot be reached the future fails with Jedis's connection failure and the next call asks
     * again. A server that refuses {@code INFO} gets plain pub/sub, which every server has.
     */
    @Override
    public CompletableFuture<Boolean> shardedPubSub() {
        if (pubSubKind.isDecided()) {
            return CompletableFuture.completedFuture(pubSubKind.isSharded());
        }
        return onScriptThread(() -> decideKind("leasehold"));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Jedis tells the two kinds apart by type: a {@link JedisDataException} is the server's error
     * reply (transient only for the "not now" replies the default knows: {@code LOADING},
     * {@code READONLY}, ...), while every other {@link JedisException} comes from the client side
     * (connection refused, reset or timed out, no connection left in the pool, cluster redirections
     * exhausted during a failover), and so is transient.
     */
    @Override
    public boolean isTransient(Throwable failure) {
        return DriverFailures.isTransient(failure, JedisDataException.class, JedisException.class);
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
        return fallback.fallbacks();
    }

    /** Closes the backend, waiting up to five seconds for its threads to end. The client stays open. Idempotent. */
    @Override
    public void close() {
        try {
            closeAsync().get(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
            // the threads are daemons and end with their last blocking call; nothing to add here
        }
    }

    /**
     * Starts closing without blocking: fails pending subscriptions, disconnects the subscribers, stops
     * taking script calls; the future completes once the backend's threads have ended. Idempotent.
     */
    @Override
    public CompletableFuture<Void> closeAsync() {
        if (!closed.compareAndSet(false, true)) {
            return closedFuture;
        }
        channels.close();
        scripts.shutdown();
        BackendThreads.start("leasehold-jedis-close-" + number, () -> {
            List<BlockingSubscriber<Connection>> loops = channelRouter.close();
            long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
            try {
                for (BlockingSubscriber<Connection> loop : loops) {
                    loop.awaitEnd(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                }
                scripts.awaitTermination(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            closedFuture.complete(null);
        });
        return closedFuture;
    }

    @Override
    public String toString() {
        return "JedisLockBackend{" + topology + (closed.get() ? ", closed" : "") + "}";
    }

    /** Decides sharded or plain pub/sub from the server that serves {@code channel}, once. Blocks. */
    private boolean decideKind(String channel) {
        if (!pubSubKind.isDecided()) {
            try (Connection connection = topology.connectionFor(channel)) {
                CommandObject<String> info = new CommandObject<>(
                        new CommandArguments(Protocol.Command.INFO).add("server"), BuilderFactory.STRING);
                pubSubKind.decideFromInfo(connection.executeCommand(info));
            } catch (JedisDataException refused) {
                pubSubKind.decidePlain(); // INFO is disabled on some managed services
            }
        }
        return pubSubKind.isSharded();
    }

    private <T> CompletableFuture<T> onScriptThread(Supplier<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            scripts.execute(() -> {
                try {
                    result.complete(call.get());
                } catch (Throwable e) {
                    result.completeExceptionally(Failures.unwrap(e));
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException("JedisLockBackend is closed", e));
        }
        return result;
    }
}
