package io.leasehold.lock.spi.support;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Helpers for the failures of asynchronous Redis calls.
 *
 * <p>This class is threadsafe (stateless).
 */
public final class Failures {

    private Failures() {}

    /**
     * The failure itself, without the {@link CompletionException} and {@link ExecutionException}
     * wrappers that {@code CompletableFuture} adds, so that callers see the driver's own exception.
     */
    public static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
