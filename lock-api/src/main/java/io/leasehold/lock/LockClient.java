package io.leasehold.lock;

import io.leasehold.lock.spi.ClientSettings;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.support.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The entry point: one per application, shared by all threads. Hands out {@link DistributedLock}
 * handles by name and owns the machinery behind them (renewal, waiting, subscriptions).
 *
 * <pre>{@code
 * try (LockClient locks = LockClient.create(LettuceLockBackend.create(redisClient))) {
 *     locks.lock("orders:42").runLocked(Duration.ofSeconds(5), () -> ship(order));
 * }
 * }</pre>
 *
 * <p>{@link #close()} ends every lease still held (as lost, {@link LeaseLoss.Reason#CLIENT_CLOSED}:
 * each holder is told, a {@code callLocked} body interrupted, a {@code withLock} block cancelled, and
 * then the lock is released), lets releases already asked for reach Redis, stops renewal, drops
 * subscriptions and stops Leasehold's threads, all within the close timeout; it is idempotent. It closes the backend too,
 * which closes only what the backend itself opened. This interface's implementation is threadsafe.
 *
 * <p><b>Threads.</b> Each client runs one timer thread ({@code leasehold-timer-<client>}: renewal,
 * loss detection, deadlines; it never runs user code), one event thread for listeners
 * ({@code leasehold-events-<client>}) and, unless the builder is given an executor, a pool for
 * user-visible completions ({@code leasehold-callback-<client>}). A Redis driver's I/O threads only
 * hand replies to the engine; no user code runs on them.
 */
public interface LockClient extends AutoCloseable {

    /** A client with default settings over {@code backend}. */
    static LockClient create(LockBackend backend) {
        return builder(backend).build();
    }

    static Builder builder(LockBackend backend) {
        return new Builder(backend);
    }

    /**
     * The longest lock name accepted, in {@code char}s ({@link String#length()}): {@value}. A name is
     * part of every Redis key and channel of its lock, so this also bounds their length.
     *
     * @see #lock(String)
     */
    int MAX_NAME_LENGTH = 512;

    /**
     * A handle on the lock {@code name} with the client's default options. Cheap; no Redis call.
     *
     * <p>A lock name is any string that is not blank, has at most {@link #MAX_NAME_LENGTH} chars and
     * is well-formed Unicode (no unpaired surrogate, which would encode to the same bytes as another
     * name). Names are compared exactly: two names are the same lock only if they are equal strings.
     *
     * @throws IllegalArgumentException if {@code name} is blank, longer than {@link #MAX_NAME_LENGTH}
     *                                  or not well-formed Unicode
     * @throws IllegalStateException    if this client is closed
     */
    DistributedLock lock(String name);

    /**
     * A handle on the lock {@code name} with its own options. Cheap; no Redis call. Names as for
     * {@link #lock(String)}.
     *
     * @throws IllegalArgumentException if {@code name} is blank, longer than {@link #MAX_NAME_LENGTH}
     *                                  or not well-formed Unicode
     * @throws IllegalStateException    if this client is closed
     */
    DistributedLock lock(String name, LockOptions options);

    /**
     * A handle on the lock {@code name} taken in strict first-in, first-out order across all waiters
     * of all clients, with the client's default options. Cheap; no Redis call.
     *
     * <p>Every waiter, of this client or another, takes its place in the lock's wait queue in Redis
     * in the order its first attempt reached Redis; a release grants the lock straight to the waiter
     * at the head of the queue (with a fresh, higher fencing token) and names it on the lock's
     * release channel, so no newcomer and no other waiter can take it in between. Everything else is
     * as for {@link #lock(String)}: reentrancy, fencing tokens, renewal, loss signals, cancellation,
     * {@code maxHoldTime}; and it is the same lock: a {@code lock(name)} of the same name excludes it,
     * but takes no place in the queue.
     *
     * <p><b>Dead waiters.</b> A waiter keeps its place alive by asking again every 0.5 s; a waiter
     * whose client died (or stalls) loses its place 1.5 s after its last call, and a grant its waiter
     * does not take within 1.5 s goes on to the next one. So each dead waiter delays the queue by at
     * most about 2 s (its place's 1.5 s, or its grant's, plus the 0.5 s until the next waiter asks),
     * never by a lease time; the queue's keys expire with the last waiter's place, so nothing is left
     * in Redis once every client is gone. A waiter that stalls for more than 1.5 s (a long GC pause)
     * loses its place too, and takes a new one at the end of the queue when it asks again.
     *
     * <p><b>Faults.</b> A waiter's call whose reply is lost is sent again after at most 0.5 s (not
     * after the command timeout), with the same owner, so it keeps its place and takes a grant made
     * to it meanwhile; once one of its calls went unanswered that long, its later calls wait the
     * whole command timeout, so that a client whose round trip to Redis is longer than 0.5 s still
     * takes its grant (one whose round trip reaches the command timeout never hears back, while its
     * retries keep a lock granted to it alive for its whole wait: set the command timeout well above
     * the worst round trip). A release whose reply is lost is sent again as for {@code lock(name)}; if the
     * lock has moved on twice since, the resend cannot tell its own release from a theft and reports
     * the release unconfirmed ({@link Lease#release()} answers false), never a loss. A Redis server
     * that stalls for longer than 1.5 s (a slow command, a fork on a large data set) makes every
     * place lapse at once: no two holders, but the waiters queue again in the order their next calls
     * reach Redis.
     *
     * <p>The cost of the order: each waiter asks Redis every 0.5 s while it waits, and each
     * release wakes its successor by a message, even within one client (where {@code lock(name)}
     * hands the lock over in the release itself).
     *
     * <p><b>On a quorum</b> (a backend that composes its grants of several servers', see
     * {@link io.leasehold.lock.spi.LockBackend#grantsAreComposed()}): each server keeps the waiters'
     * places, ordered by a ticket the quorum chose for each waiter, the same on every server; a waiter
     * whose ticket reached a majority is served before every waiter whose first call came later. A
     * server grants the lock only to the head of its queue, and hands nothing over in a release: every
     * waiter hears the release and asks, and the head's ask wins a majority. Places are kept by each
     * waiter's calls (every 0.5 s) and taken out by a given-up waiter's clean-up, as on one server. A
     * server grants a waiter the lock for 1.5 s only, keeping its place, until the quorum commits the
     * grant with the lease (then the places are taken out): a waiter that dies in the round trip of the
     * call that won its grants holds the queue about as long as a dead head on one server does. A limit
     * that one server does not have: a waiter whose round trip to the servers is longer than about 0.6 s
     * may lose its place between two of its calls, and with it its turn. A {@code lock(name)} of the
     * same name still excludes it, but does not wait behind the fair waiters there: it may take a free
     * lock ahead of them.
     *
     * @throws IllegalArgumentException if {@code name} is not a valid lock name (see {@link #lock(String)})
     * @throws IllegalStateException    if this client is closed
     */
    DistributedLock fairLock(String name);

    /**
     * {@link #fairLock(String)} with its own options.
     *
     * @throws IllegalArgumentException if {@code name} is not a valid lock name (see {@link #lock(String)})
     * @throws IllegalStateException    if this client is closed
     */
    DistributedLock fairLock(String name, LockOptions options);

    /** The options {@link #lock(String)} uses. */
    LockOptions defaultOptions();

    /** Whether {@link #close()} has been called. */
    boolean isClosed();

    /**
     * What this client keeps in memory right now, counted by kind (leases, waiters, subscriptions,
     * calls in flight, timer tasks): a snapshot cheap enough for a health check or a gauge, with no
     * Redis call. Once every lease it handed out has been released and every acquisition has ended, a
     * client comes back to {@linkplain LockClientDiagnostics#isQuiescent() quiescent}; one that does
     * not keeps something it should not. May be called from any thread, at any time, after
     * {@link #close()} too.
     */
    LockClientDiagnostics diagnostics();

    /**
     * Ends held leases (lost, {@link LeaseLoss.Reason#CLIENT_CLOSED}: their holders are told first),
     * waits for their releases and for releases asked for before, stops renewal and unsubscribes; the
     * whole bounded by the close timeout. A lock whose release could not be settled in time is named in
     * a WARNING log line, and expires after its lease time. Idempotent.
     */
    @Override
    void close();

    /** Builds a {@link LockClient}. Not threadsafe. */
    final class Builder {

        /** Default key prefix: keys look like {@code leasehold:{orders:42}}. */
        public static final String DEFAULT_KEY_PREFIX = "leasehold:";
        /** Default bound on one Redis call as the engine sees it. */
        public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(5);
        /** Default bound on {@link LockClient#close()}. */
        public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(5);

        private final LockBackend backend;
        private LockOptions defaultOptions = LockOptions.defaults();
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
        private final List<LockEventListener> listeners = new ArrayList<>();
        private @Nullable Executor callbackExecutor;
        private Ticker ticker = Ticker.systemTicker();

        private Builder(LockBackend backend) {
            this.backend = Checks.notNull("backend", backend, null);
        }

        public Builder defaultOptions(LockOptions options) {
            this.defaultOptions = Checks.notNull("defaultOptions", options, null);
            return this;
        }

        /** Prefix of every Redis key and channel; must not contain '{' or '}' (they mark the cluster hash tag). */
        public Builder keyPrefix(String keyPrefix) {
            Checks.notNull("keyPrefix", keyPrefix, null);
            if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
                throw new IllegalArgumentException(
                        "keyPrefix must not contain '{' or '}', but was '" + keyPrefix + "'");
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * How long the engine waits for one Redis reply before treating the call as failed (the
         * outcome is then unknown, and an acquire is cleaned up by releasing with its owner value).
         */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = Checks.positive("commandTimeout", commandTimeout, null);
            return this;
        }

        /** Upper bound on the whole of {@link LockClient#close()}, closing the backend included. */
        public Builder closeTimeout(Duration closeTimeout) {
            this.closeTimeout = Checks.positive("closeTimeout", closeTimeout, null);
            return this;
        }

        /**
         * Where user-visible futures complete ({@code acquireAsync}, {@code lost()},
         * {@code releaseAsync}, ...) and where {@code callLockedAsync} bodies run, so that user code
         * never runs on a Redis driver's I/O thread or on the engine's renewal thread. The executor
         * must run tasks on threads of its own (not the caller's) and must not be starved: a loss is
         * signalled through it. The client does not shut it down.
         *
         * <p>Default: a pool owned by the client that grows as needed (daemon threads named
         * {@code leasehold-callback-<client>}; one waits from the start, so that a loss signal never waits
         * for a thread to be made, and idle ones beyond it end after a few seconds), shut down by
         * {@link LockClient#close()}; a blocking continuation then delays nothing else.
         */
        public Builder callbackExecutor(Executor executor) {
            this.callbackExecutor = Checks.notNull("callbackExecutor", executor, null);
            return this;
        }

        /**
         * The engine's time source, {@link Ticker#systemTicker()} by default. Tests set a ticker they
         * move by hand (lock-inmemory's {@code ManualClock}) so that leases, waits and timeouts run out
         * when the test says.
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Checks.notNull("ticker", ticker, null);
            return this;
        }

        /**
         * Adds a listener; listeners are called in the order added, one event after another, on the
         * client's event thread ({@code leasehold-events-<client>}), never on a driver's I/O thread
         * or on the renewal thread.
         */
        public Builder listener(LockEventListener listener) {
            listeners.add(Checks.notNull("listener", listener, null));
            return this;
        }

        /**
         * A new client with these settings, run by Leasehold's engine (artifact {@code lock-engine},
         * which every driver brings; found with {@link java.util.ServiceLoader}).
         *
         * @return the client; close it when done
         * @throws IllegalStateException if no engine is on the class or module path: the message names
         *     the artifacts to add
         */
        public LockClient build() {
            return EngineLookup.engine()
                    .newClient(new ClientSettings(
                            backend,
                            defaultOptions,
                            keyPrefix,
                            commandTimeout,
                            closeTimeout,
                            List.copyOf(listeners),
                            callbackExecutor,
                            ticker));
        }
    }
}
