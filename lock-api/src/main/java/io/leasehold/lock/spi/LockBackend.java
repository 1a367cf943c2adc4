package io.leasehold.lock.spi;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The driver SPI: how the engine talks to Redis. A backend runs {@link LuaScript}s and subscribes
 * to channels, and knows nothing about locks; the algorithm lives once, in the engine.
 *
 * <p><b>Replies</b> of {@link #eval} are mapped as: integer → {@link Long}; bulk or status string →
 * {@link String} (UTF-8); array → {@link List} of mapped elements; nil → {@code null}. A Redis
 * error or a connection failure completes the future exceptionally with the driver's exception.
 *
 * <p><b>Threads.</b> Methods must not block the caller; futures may complete on the driver's I/O
 * threads, and the engine never blocks in their callbacks. Implementations must be threadsafe and
 * must not open a connection per call.
 *
 * <p>{@link #close()} closes what the backend opened and nothing its user owns.
 */
public interface LockBackend extends AutoCloseable {

    /**
     * Runs {@code script} (by SHA, falling back to the source when Redis answers {@code NOSCRIPT}).
     * All keys of one call share a cluster slot.
     */
    CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args);

    /**
     * Subscribes {@code listener} to {@code channel} (sharded pub/sub when
     * {@link #shardedPubSub()} is true). The future completes once the subscription is active, so
     * that a message published after completion is delivered. After a reconnect the backend
     * subscribes again and calls {@link MessageListener#onResubscribed(String)}.
     */
    CompletableFuture<Subscription> subscribe(String channel, MessageListener listener);

    /**
     * True when release notifications use sharded pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE},
     * Redis 7+); false for plain {@code PUBLISH}/{@code SUBSCRIBE}. The scripts publish with the
     * matching command.
     */
    boolean shardedPubSub();

    /**
     * The cluster slot of {@code key}, so that the engine can group batched calls by slot; a
     * non-cluster backend returns 0 (the default).
     */
    default int slot(String key) {
        return 0;
    }

    /** Closes what this backend opened (connections, threads); never a client its user passed in. */
    @Override
    void close();
}
