package io.leasehold.lock.internal;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockInterruptedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Blocking on the engine's futures with the exceptions the blocking API promises. */
final class Futures {

    private Futures() {}

    /**
     * Waits for an acquisition. On interrupt the acquisition is cancelled (which releases anything it
     * may have taken), a lease that won the race is released, the interrupt flag is set again, and
     * {@link LockInterruptedException} is thrown.
     */
    static Lease awaitLease(CompletableFuture<Lease> acquisition, String lockName) {
        try {
            return acquisition.get();
        } catch (InterruptedException e) {
            if (!acquisition.cancel(false) && !acquisition.isCompletedExceptionally()) {
                ((DefaultLease) acquisition.join()).releaseInternal(); // the lease won the race with the interrupt
            }
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(lockName, e);
        } catch (ExecutionException e) {
            throw rethrow(e);
        }
    }

    static RuntimeException rethrow(Throwable error) {
        Throwable cause = DefaultLease.unwrap(error);
        if (cause instanceof RuntimeException) {
            throw (RuntimeException) cause;
        }
        if (cause instanceof Error) {
            throw (Error) cause;
        }
        throw new IllegalStateException(cause);
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
