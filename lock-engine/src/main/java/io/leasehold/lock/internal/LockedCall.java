package io.leasehold.lock.internal;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseLostException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One {@code callLockedAsync}: acquire, run the body on the callback executor, release when the
 * body's stage completes, and decide the outcome from the lease's state.
 *
 * <p><b>Cancellation.</b> Cancelling the result while waiting abandons the acquisition (which
 * releases anything that landed); once the body runs, it cancels the body's stage and releases the
 * lock at once.
 *
 * <p><b>Loss.</b> A loss while the body runs fails the result with {@link LeaseLostException} and
 * cancels the body's stage, before the engine frees the lock for others. A loss declared before the
 * release, or found by it, wins over the body's value or exception (added as suppressed), exactly as
 * in {@code callLocked} and Kotlin's {@code withLock}; a release Redis could not confirm does not (the
 * body ended while the lease was valid).
 *
 * <p>This class is threadsafe.
 */
final class LockedCall<T> {

    private final Engine engine;
    private final DefaultLease lease;
    private final CompletableFuture<T> outcome;

    private LockedCall(Engine engine, DefaultLease lease, CompletableFuture<T> outcome) {
        this.engine = engine;
        this.lease = lease;
        this.outcome = outcome;
    }

    static <T> CompletableFuture<T> start(
            DefaultDistributedLock lock, Duration wait, Function<Lease, ? extends CompletionStage<T>> body) {
        CompletableFuture<T> outcome = new CompletableFuture<>();
        CompletableFuture<Lease> acquiring = lock.acquireAsync(wait);
        outcome.whenComplete((value, error) -> {
            if (outcome.isCancelled()) {
                acquiring.cancel(false); // no effect once the lease was handed over; the body's run sees the cancel
            }
        });
        // The body always runs on the callback executor: never on an I/O or timer thread, and never on
        // the caller's thread either (acquiring may be complete before this line, which would otherwise
        // run the body inside this call).
        acquiring.whenComplete((lease, error) -> lock.engine().runCallback(() -> {
            if (error != null) {
                outcome.completeExceptionally(Futures.unwrap(error));
            } else {
                new LockedCall<>(lock.engine(), (DefaultLease) lease, outcome).run(body);
            }
        }));
        return outcome;
    }

    private void run(Function<Lease, ? extends CompletionStage<T>> body) {
        if (outcome.isDone()) {
            lease.releaseUnused(); // cancelled while the lease was on its way
            return;
        }
        LeaseLoss lostAlready = lease.lossIfInvalid();
        if (lostAlready != null) {
            outcome.completeExceptionally(
                    new LeaseLostException(lostAlready)); // never start the body under a dead lease
            return;
        }
        CompletableFuture<T> running;
        try {
            running = Objects.requireNonNull(body.apply(lease), "callLockedAsync body returned a null stage")
                    .toCompletableFuture();
        } catch (Throwable t) {
            running = CompletableFuture.failedFuture(t);
        }
        CompletableFuture<T> stage = running;
        AutoCloseable watch = lease.watchLoss(loss -> {
            outcome.completeExceptionally(new LeaseLostException(loss));
            stage.cancel(false); // tell the body, if it listens
        });
        outcome.whenComplete((value, error) -> {
            if (outcome.isCancelled()) {
                stage.cancel(true);
                lease.releaseInternal();
            }
        });
        stage.whenComplete((value, bodyError) -> {
            Futures.closeQuietly(watch);
            finish(value, bodyError);
        });
    }

    /** Ends the lease, then reports how it ended, as {@code callLocked} does. */
    private void finish(@Nullable T value, @Nullable Throwable bodyError) {
        lease.releaseAfterWork()
                .whenComplete((ended, never) -> engine.runCallback(() -> {
                    LeaseLoss loss = lease.loss();
                    if (loss != null) {
                        LeaseLostException lost = new LeaseLostException(loss);
                        if (bodyError != null) {
                            lost.addSuppressed(Futures.unwrap(bodyError));
                        }
                        outcome.completeExceptionally(lost);
                    } else if (bodyError != null) {
                        outcome.completeExceptionally(Futures.unwrap(bodyError));
                    } else {
                        outcome.complete(value);
                    }
                }));
    }
}
