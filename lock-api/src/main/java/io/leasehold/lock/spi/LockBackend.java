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
 * threads, and the engine never blocks in their callbacks and never runs user code in them. Implementations must be threadsafe and
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
     * {@link #eval(LuaScript, List, List)}, telling the engine when the call is handed to its
     * connection: {@code writing} runs just before the command is written (after any wait for a
     * connection: a pool borrow, a connect and its handshake), once per write (again if the backend
     * sends the call again, as after {@code NOSCRIPT} or a cluster {@code MOVED}); never if nothing is
     * written. It must be fast and never blocks. The engine counts a lease's validity from the last
     * such moment rather than from the call: still before Redis can run the command, so the count never
     * exceeds what Redis holds (G4), while a connection opened inside the call no longer eats into the
     * lease. The default runs {@code writing} at once, then the plain eval; a backend that may wait for
     * a connection inside the call overrides this.
     */
    default CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args, Runnable writing) {
        writing.run();
        return eval(script, keys, args);
    }

    /**
     * Subscribes {@code listener} to {@code channel} (sharded pub/sub when
     * {@link #shardedPubSub()} is true). The future completes once the subscription is active, so
     * that a message published after completion is delivered. After a reconnect the backend
     * subscribes again and calls {@link MessageListener#onResubscribed(String)}.
     */
    CompletableFuture<Subscription> subscribe(String channel, MessageListener listener);

    /**
     * Whether release notifications use sharded pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE},
     * Redis 7+: true) or plain {@code PUBLISH}/{@code SUBSCRIBE} (false); the scripts publish with
     * the matching command. The future completes once the backend knows, which may take the
     * server's answer; it must not block the caller, and it fails with the real cause (a refused
     * connection, say) when the backend cannot find out yet, so that a later call can ask again.
     * Once it has completed with a value, every later call must complete with the same value: what
     * the engine publishes with and what the backend subscribes with must always agree.
     */
    CompletableFuture<Boolean> shardedPubSub();

    /**
     * Whether {@code failure} of a call to this backend is transient: the connection failed, timed
     * out or the server is briefly unable to serve (loading, failing over), so that the same call
     * may succeed if retried. A Redis error about the call itself (a script error, a key of the
     * wrong type) is not transient. The engine retries transient failures of an acquisition while
     * its wait has time left. The default recognises the JDK's I/O and timeout exceptions and
     * Redis's transient error replies; see {@link TransientFailures}.
     */
    default boolean isTransient(Throwable failure) {
        return TransientFailures.isTransient(failure);
    }

    /**
     * Closes what this backend opened without blocking the caller; the future completes once it is
     * closed. The engine waits for it only as long as the client's close timeout allows, so a backend
     * whose {@link #close()} may block should override this. The default calls {@link #close()}.
     */
    default CompletableFuture<Void> closeAsync() {
        try {
            close();
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Whether a grant by this backend is composed of several servers' grants (a quorum of independent
     * masters), so that no single server's message or script can stand for one. The default, false,
     * is right for every backend that talks to one master (standalone, Sentinel, Cluster). When true,
     * the engine:
     * <ul>
     *   <li>takes no place in a server's wait queue for a {@code lock(name)} waiter (each server would
     *       order the waiters by when their calls reached it), and never takes a lease from a grant message: a server's
     *       {@code granted} message names that server's grant only, so it is taken for a release, the
     *       waiters ask, and the backend's reply decides;</li>
     *   <li>never hands a lock over to a local waiter within its release ({@code handoff.lua} grants per
     *       server, and could land on some of them only): the release releases, and the local head
     *       asks once it settled (or on its message, if that comes first);</li>
     *   <li>for {@link io.leasehold.lock.LockClient#fairLock fairLock}, sends place mode {@code '0'}
     *       with the waiter's id as a 7th argument of acquire.lua (the same in every attempt of one
     *       acquisition, while each attempt has an owner of its own): the backend keeps the waiter's
     *       place under it, in an order of its own that is the same on every server; the engine's
     *       watchdog keeps no place of such a waiter (its attempts keep it, and the backend answers a
     *       contended attempt with a TTL no longer than a third of the waiter lease).</li>
     * </ul>
     */
    default boolean grantsAreComposed() {
        return false;
    }

    /**
     * How the servers behind this backend are deployed, as far as it can tell from how it was built; a
     * quorum refuses a {@link Deployment#SENTINEL Sentinel} or {@link Deployment#CLUSTER Cluster} member.
     * The default, {@link Deployment#UNKNOWN}, is refused by nothing.
     *
     * @return the deployment, never null
     */
    default Deployment deployment() {
        return Deployment.UNKNOWN;
    }

    /**
     * Whether renewals and extends may be confirmed partially: renew.lua and extend.lua's reply code
     * {@value #CONFIRMED_PARTIALLY} then means "renewed where it counts (a majority of servers), but
     * not on every one". The engine counts such a renewal as a renewal (the lease's validity moves on
     * from its send), and reports the lease {@link io.leasehold.lock.LeaseState#UNCERTAIN UNCERTAIN}
     * (one more failure from losing it) until a renewal is confirmed everywhere again. The default,
     * false: a backend that talks to one master never answers that code, and the engine takes it for
     * an unknown reply.
     */
    default boolean confirmsPartially() {
        return false;
    }

    /**
     * The longest TTL this backend sets on a lock, if it caps them (a quorum does, see its
     * {@code maxLeaseTime}): the engine then refuses a lock whose
     * {@link io.leasehold.lock.LockOptions#minHoldTime() min-hold time} is longer, since its release could
     * not keep the lock that long. The default: no cap.
     *
     * @return the cap, or empty
     */
    default java.util.Optional<java.time.Duration> leaseCap() {
        return java.util.Optional.empty();
    }

    /** The reply code of a renewal or extend confirmed partially; see {@link #confirmsPartially()}. */
    long CONFIRMED_PARTIALLY = 3;

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
