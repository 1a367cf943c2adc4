package io.leasehold.lock.lettuce;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One connection, opened on first use and shared by every later call. A failed attempt is not
 * cached: the next call tries again (Redis may have been down at start-up). A connection that once
 * succeeded is never replaced: the driver reconnects it by itself (as Lettuce does), or the connector
 * returns something that does (a pool).
 *
 * <p>This class is threadsafe. {@link #get()} never blocks: the connector must start an
 * asynchronous connect and return at once.
 *
 * @param <C> the connection type
 */
final class LazyConnection<C> {

    private final String description;
    private final Supplier<CompletableFuture<C>> connector;
    private final Function<C, CompletableFuture<?>> closer;

    private @Nullable CompletableFuture<C> current; // guarded by this
    private boolean closed; // guarded by this

    /**
     * @param description names the connection in errors, e.g. {@code "the script connection"}
     * @param connector   starts an asynchronous connect and returns at once
     * @param closer      closes an open connection asynchronously
     */
    LazyConnection(
            String description, Supplier<CompletableFuture<C>> connector, Function<C, CompletableFuture<?>> closer) {
        this.description = description;
        this.connector = connector;
        this.closer = closer;
    }

    /** The connection, connecting first if there is none yet or the last attempt failed. */
    CompletableFuture<C> get() {
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException(description + " is closed"));
            }
            CompletableFuture<C> connection = current;
            if (connection == null || connection.isCompletedExceptionally()) {
                connection = start();
                current = connection;
            }
            return connection;
        }
    }

    /** The connection if it is open now; {@code null} while connecting, after a failure, or when closed. */
    @Nullable
    C now() {
        CompletableFuture<C> connection;
        synchronized (this) {
            connection = current;
        }
        if (connection == null || !connection.isDone() || connection.isCompletedExceptionally()) {
            return null;
        }
        return connection.join();
    }

    /** Closes the connection (also one still being opened); later {@link #get()} calls fail. Idempotent. */
    CompletableFuture<Void> close() {
        CompletableFuture<C> connection;
        synchronized (this) {
            closed = true;
            connection = current;
            current = null;
        }
        if (connection == null) {
            return CompletableFuture.completedFuture(null);
        }
        return connection
                .handle((c, failure) -> c)
                .thenCompose(c -> c == null ? CompletableFuture.completedFuture(null) : closer.apply(c))
                .handle((ignored, failure) -> null);
    }

    private CompletableFuture<C> start() {
        try {
            return connector.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
