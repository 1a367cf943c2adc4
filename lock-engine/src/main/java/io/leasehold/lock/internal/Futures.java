package io.leasehold.lock.internal;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockInterruptedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Blocking on the engine's futures with the exceptions the blocking API promises; and the engine's own
 * handlers of what completes them, which never fail silently ({@link #whenDone}).
 */
final class Futures {

    private Futures() {}

    /**
     * Waits for an acquisition. If the thread is interrupted before the lease is returned, the
     * acquisition is cancelled (which releases anything it may have taken), a lease that won the race
     * is released, the interrupt flag is set again, and {@link LockInterruptedException} is thrown.
     * That includes a lease that was ready before the waiting thread noticed its interrupt, which
     * {@link CompletableFuture#get()} would return with the flag set: a thread told to stop is never
     * handed a lease.
     */
    static Lease awaitLease(CompletableFuture<Lease> acquisition, String lockName) {
        Lease lease;
        try {
            lease = acquisition.get();
        } catch (InterruptedException e) {
            throw interrupted(acquisition, lockName, e);
        } catch (ExecutionException e) {
            throw rethrow(e);
        }
        if (Thread.currentThread().isInterrupted()) {
            throw interrupted(
                    acquisition,
                    lockName,
                    new InterruptedException("interrupted before the lease of lock '" + lockName + "' was returned"));
        }
        return lease;
    }

    private static LockInterruptedException interrupted(
            CompletableFuture<Lease> acquisition, String lockName, InterruptedException cause) {
        if (!acquisition.cancel(false) && !acquisition.isCompletedExceptionally()) {
            ((DefaultLease) acquisition.join()).releaseUnused(); // the lease won the race with the interrupt
        }
        Thread.currentThread().interrupt();
        return new LockInterruptedException(lockName, cause);
    }

    /** The cause inside {@link CompletionException}s and {@link ExecutionException}s: the failure itself. */
    static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /** Waits for {@code future}, throwing its failure itself (unchecked) rather than wrapped. */
    static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }

    static RuntimeException rethrow(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof RuntimeException) {
            throw (RuntimeException) cause;
        }
        if (cause instanceof Error) {
            throw (Error) cause;
        }
        throw new IllegalStateException(cause);
    }

    /**
     * Runs {@code handler} when {@code future} completes, as {@link CompletableFuture#whenComplete}
     * does, for an engine handler whose own future nobody reads (a reply's handling, which moves a
     * state machine on): should it throw, which is a bug in the engine, the failure is logged
     * ({@link EngineLog#handlerFailed}: it handled {@code what}, of lock {@code lockName} if it
     * concerns one; the message is built only then) instead of vanishing into that unread future,
     * where the acquisition, release or renewal it left half done would wait without a trace.
     */
    static <T> void whenDone(
            CompletableFuture<T> future,
            String what,
            @Nullable String lockName,
            BiConsumer<? super T, ? super Throwable> handler) {
        future.whenComplete((value, error) -> {
            try {
                handler.accept(value, error);
            } catch (Throwable bug) {
                EngineLog.handlerFailed(what, lockName, bug);
                if (bug instanceof VirtualMachineError) {
                    throw (VirtualMachineError) bug;
                }
            }
        });
    }

    /** Closes a hook registration; they never fail. */
    static void closeQuietly(AutoCloseable registration) {
        try {
            registration.close();
        } catch (Exception impossible) {
            // the engine's registrations only remove an entry from a set
        }
    }
}
