package io.leasehold.lock.jedis;

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
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * A {@link LockBackend} over the application's own Jedis client (Jedis 6.0 to 8.x): one for a single
 * server ({@code RedisClient} in Jedis 8, {@code JedisPooled} in 6 and 7), for a Sentinel-managed master
 * ({@code RedisSentinelClient}, {@code JedisSentineled}) or for Redis Cluster ({@code RedisClusterClient},
 * {@code JedisCluster}). All are {@link UnifiedJedis}, which the factories take.
 *
 * <pre>{@code
 * RedisClient redis = RedisClient.create("redis://localhost:6379"); // Jedis 6 and 7: new JedisPooled(...)
 * try (LockClient locks = JedisLockBackend.lockClient(redis)) {
 *     locks.lock("orders:42").runLocked(Duration.ofSeconds(5), () -> ship(order));
 * }
 * redis.close(); // the client stays yours: closing Leasehold leaves it open
 * }</pre>
 *
 * <p><b>Threads.</b> Jedis blocks the calling thread, so scripts run on a bounded pool owned by the
 * backend (daemon threads {@code leasehold-jedis-script-<backend>-<n>}: by default one fewer than the
 * client's pool allows, at most {@value #DEFAULT_SCRIPT_THREADS}; idle threads end after a minute), and
 * {@link #eval} never blocks its caller. Pub/sub runs on one daemon thread
 * {@code leasehold-jedis-pubsub-<backend>-<n>} per node (one outside a cluster), started by the first
 * waiter, and subscriptions are routed on one thread {@code leasehold-jedis-router-<backend>}. No user code runs on
 * any of them: the engine hands replies and messages on.
 *
 * <p><b>Connections.</b> Every connection is borrowed from the pool of your client; the backend opens
 * none beside it. A script call borrows one for the call. The subscriber of a node holds one while
 * it has channels (so the script threads stay below the pool's {@code maxTotal}; a pool of fewer
 * than 2 is refused; if your own code or a second backend shares the pool, size it for them too:
 * Jedis waits for a free connection forever by default), gives it back when the last waiter leaves, and, when it drops, discards it, borrows a new one with
 * back-off, subscribes its channels again and tells the engine
 * ({@link MessageListener#onResubscribed(String)}), so that no waiter misses a release. A call that
 * finds no idle connection waits while the pool opens one, handshake round trips included: on a slow
 * link, give the pool a {@code minIdle} of the script threads, or a fair waiter's place, renewed every
 * 0.5 s for a waiter lease of 1.5 s, may lapse while its renewal waits (the waiter then queues again).
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

    /**
     * Script threads at most by default; fewer when the client's pool is smaller, so that one
     * connection always stays for the subscriber (Jedis's default pool of 8 gets 7).
     */
    public static final int DEFAULT_SCRIPT_THREADS = 8;

    /** How long {@link #close()} waits for the backend's threads to end. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final JedisTopology topology;
    private final ScriptCalls calls;
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
        this.topology = topology;
        this.calls = new ScriptCalls(topology, closed::get);
        int number = BackendThreads.nextBackendNumber();
        this.scripts = BackendThreads.scriptPool("leasehold-jedis-script-" + number + "-", scriptThreads);
        this.router = BackendThreads.single("leasehold-jedis-router-" + number);
        this.channelRouter =
                new ChannelRouter(topology, this::decideKind, router, "leasehold-jedis-pubsub-" + number + "-");
        this.number = number;
        this.channels = new PubSubChannels("JedisLockBackend", channelRouter);
        channelRouter.attach(channels);
    }

    /**
     * A backend over {@code client}, with {@link #DEFAULT_SCRIPT_THREADS} script threads or fewer (one
     * below the size of the client's pool; in a cluster, of its smallest node pool).
     *
     * @param client a client for a single server ({@code RedisClient} in Jedis 8, {@code JedisPooled} in 6
     *     and 7), a Sentinel-managed master ({@code RedisSentinelClient}, {@code JedisSentineled}, which the
     *     backend follows through failovers as the client does) or a Redis Cluster ({@code RedisClusterClient},
     *     {@code JedisCluster})
     * @throws IllegalArgumentException if the client is of another kind (over one connection, sharded,
     *     multi-cluster failover) or its pool allows fewer than 2 connections
     */
    public static JedisLockBackend create(UnifiedJedis client) {
        return withDefaultThreads(JedisTopology.of(client));
    }

    /**
     * A backend over {@code client} (see {@link #create(UnifiedJedis)}), running scripts on
     * {@code scriptThreads} threads.
     *
     * @throws IllegalArgumentException if the client is of another kind, or {@code scriptThreads} is below
     *     1 or not below the pool's maxTotal
     */
    public static JedisLockBackend create(UnifiedJedis client, int scriptThreads) {
        return checked(JedisTopology.of(client), scriptThreads);
    }

    private static JedisLockBackend withDefaultThreads(JedisTopology topology) {
        int maxTotal = topology.poolMaxTotal();
        if (maxTotal >= 0 && maxTotal < 2) {
            throw new IllegalArgumentException("the client's connection pool must allow at least 2 connections (one for"
                    + " the subscriber, one for scripts), but its maxTotal was " + maxTotal);
        }
        return new JedisLockBackend(
                topology, maxTotal < 0 ? DEFAULT_SCRIPT_THREADS : Math.min(DEFAULT_SCRIPT_THREADS, maxTotal - 1));
    }

    /**
     * Script threads must leave the subscriber a connection: with a pool of {@code maxTotal}, a
     * subscriber holding one and more script threads than {@code maxTotal - 1}, a call would wait for
     * the pool (Jedis waits forever by default) while Redis is healthy.
     */
    static JedisLockBackend checked(JedisTopology topology, int scriptThreads) {
        if (scriptThreads < 1) {
            throw new IllegalArgumentException("scriptThreads must be at least 1, but was " + scriptThreads);
        }
        int maxTotal = topology.poolMaxTotal();
        if (maxTotal >= 0 && scriptThreads > maxTotal - 1) {
            throw new IllegalArgumentException("scriptThreads must be below the client's pool maxTotal of " + maxTotal
                    + " (one connection stays for the subscriber), but was " + scriptThreads);
        }
        return new JedisLockBackend(topology, scriptThreads);
    }

    /** A {@link LockClient} with default settings over {@link #create(UnifiedJedis)}; closing it closes the backend. */
    public static LockClient lockClient(UnifiedJedis client) {
        return DriverClients.createOwning(create(client));
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        return eval(script, keys, args, () -> {});
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here {@code writing} runs on the script thread once it holds a connection: a connection that
     * the pool opens inside the call (a connect, {@code HELLO} and {@code CLIENT SETINFO}: three round
     * trips) does not count against the lease.
     */
    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args, Runnable writing) {
        Objects.requireNonNull(script, "script must not be null");
        Objects.requireNonNull(keys, "keys must not be null");
        Objects.requireNonNull(args, "args must not be null");
        Objects.requireNonNull(writing, "writing must not be null");
        return fallback.run(
                script,
                sha -> onScriptThread(
                        () -> JedisReplies.normalize(calls.run(Protocol.Command.EVALSHA, sha, keys, args, writing))),
                source -> onScriptThread(
                        () -> JedisReplies.normalize(calls.run(Protocol.Command.EVAL, source, keys, args, writing))));
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
     * (connection refused, reset or timed out, no connection left in the pool), and so is transient,
     * as is a cluster redirection ({@code MOVED} again after a refresh, {@code ASK} while a slot migrates).
     */
    @Override
    public boolean isTransient(Throwable failure) {
        for (Throwable cause = failure; cause != null && cause.getCause() != cause; cause = cause.getCause()) {
            if (cause instanceof JedisRedirectionException) {
                return true; // MOVED twice or ASK: a slot on its way to another node
            }
        }
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
        // Calls not started yet never start; calls waiting for a reply are cut off (their futures fail).
        for (Runnable queued : scripts.shutdownNow()) {
            if (queued instanceof ScriptTask<?> task) {
                task.result.completeExceptionally(new IllegalStateException("JedisLockBackend is closed"));
            }
        }
        BackendThreads.start("leasehold-jedis-close-" + number, () -> {
            calls.cutAll(); // may wait briefly for a call writing into its buffer: not on the caller's thread
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

    /** {@code STANDALONE}, {@code SENTINEL} or {@code CLUSTER}, from the client's connection provider. */
    @Override
    public Deployment deployment() {
        return topology.deployment();
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
        ScriptTask<T> task = new ScriptTask<>(call, closed);
        try {
            scripts.execute(task);
        } catch (RejectedExecutionException e) {
            task.result.completeExceptionally(new IllegalStateException("JedisLockBackend is closed", e));
        }
        return task.result;
    }

    /** A blocking call for a script thread, with the future of its outcome; never starts once the backend closed. */
    private static final class ScriptTask<T> implements Runnable {
        final CompletableFuture<T> result = new CompletableFuture<>();
        private final Supplier<T> call;
        private final AtomicBoolean closed;

        ScriptTask(Supplier<T> call, AtomicBoolean closed) {
            this.call = call;
            this.closed = closed;
        }

        @Override
        public void run() {
            if (closed.get()) {
                result.completeExceptionally(new IllegalStateException("JedisLockBackend is closed"));
                return;
            }
            try {
                result.complete(call.get());
            } catch (Throwable e) {
                result.completeExceptionally(Failures.unwrap(e));
            }
        }
    }
}
