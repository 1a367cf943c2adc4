package io.leasehold.lock;

import io.leasehold.lock.internal.Checks;
import io.leasehold.lock.internal.DefaultLockClient;
import io.leasehold.lock.spi.LockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
 * <p>{@link #close()} releases every lease still held (bounded in time), stops renewal, drops
 * subscriptions and stops Leasehold's threads; it is idempotent. It closes the backend too, which
 * closes only what the backend itself opened. This interface's implementation is threadsafe.
 */
public interface LockClient extends AutoCloseable {

    /** A client with default settings over {@code backend}. */
    static LockClient create(LockBackend backend) {
        return builder(backend).build();
    }

    static Builder builder(LockBackend backend) {
        return new Builder(backend);
    }

    /** A handle on the lock {@code name} with the client's default options. Cheap; no Redis call. */
    DistributedLock lock(String name);

    /** A handle on the lock {@code name} with its own options. Cheap; no Redis call. */
    DistributedLock lock(String name, LockOptions options);

    /** The options {@link #lock(String)} uses. */
    LockOptions defaultOptions();

    /** Whether {@link #close()} has been called. */
    boolean isClosed();

    /** Releases held leases (bounded by the close timeout), stops renewal and unsubscribes. Idempotent. */
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
                throw new IllegalArgumentException("keyPrefix must not contain '{' or '}', but was '" + keyPrefix + "'");
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

        /** Upper bound on {@link LockClient#close()}. */
        public Builder closeTimeout(Duration closeTimeout) {
            this.closeTimeout = Checks.positive("closeTimeout", closeTimeout, null);
            return this;
        }

        /** Adds a listener; listeners are called in the order added. */
        public Builder listener(LockEventListener listener) {
            listeners.add(Checks.notNull("listener", listener, null));
            return this;
        }

        public LockClient build() {
            return new DefaultLockClient(backend, defaultOptions, keyPrefix, commandTimeout, closeTimeout, List.copyOf(listeners));
        }
    }
}
