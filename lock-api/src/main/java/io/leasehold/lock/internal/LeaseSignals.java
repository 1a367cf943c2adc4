package io.leasehold.lock.internal;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What the Kotlin API needs of a lease beyond the public {@link Lease} interface: the loss as a
 * synchronous fact, and a removable loss watcher. <b>Internal: may change without notice.</b>
 *
 * <p>For the engine's own leases these read the lease's state; for any other {@link Lease} (a test
 * double) they fall back to its {@link Lease#lost()} future.
 */
public final class LeaseSignals {

    private LeaseSignals() {}

    /**
     * The loss of {@code lease} if it is lost (declaring it first if its validity has run out), or
     * null while it is valid or after a release.
     */
    public static @Nullable LeaseLoss lossIfInvalid(Lease lease) {
        if (lease instanceof DefaultLease) {
            return ((DefaultLease) lease).lossIfInvalid();
        }
        CompletableFuture<LeaseLoss> lost = lease.lost();
        return lost.isDone() && !lost.isCompletedExceptionally() && !lost.isCancelled() ? lost.join() : null;
    }

    /**
     * Releases {@code lease} after the work under it, on the callback executor, telling whether Redis
     * was found no longer holding the lock for it (true: this call ended the lease, and the lock was
     * gone, so the work may have overlapped with another holder). A lease that had already ended
     * (released by hand, or lost) gives false. Fails as {@code releaseAsync} does.
     */
    public static CompletableFuture<Boolean> releaseFindingGone(Lease lease) {
        if (lease instanceof DefaultLease) {
            DefaultLease own = (DefaultLease) lease;
            return own.engineToCaller(own.releaseTelling().thenApply(outcome -> outcome == DefaultLease.Released.GONE));
        }
        io.leasehold.lock.LeaseState before = lease.state();
        boolean held = before == io.leasehold.lock.LeaseState.HELD || before == io.leasehold.lock.LeaseState.UNCERTAIN;
        return lease.releaseAsync().thenApply(released -> held && !released);
    }

    /**
     * Calls {@code watcher} once {@code lease} is lost: on the client's callback executor, before the
     * engine frees the lock for others (at once if it already is). The returned handle removes the
     * watcher, leaving no trace on the lease.
     */
    public static AutoCloseable watchLoss(Lease lease, Consumer<LeaseLoss> watcher) {
        if (lease instanceof DefaultLease) {
            return ((DefaultLease) lease).watchLoss(watcher);
        }
        CompletableFuture<Void> dependent = lease.lost().thenAccept(watcher);
        return () -> dependent.cancel(false);
    }
}
