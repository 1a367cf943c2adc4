package io.leasehold.lock;

import io.leasehold.lock.spi.EngineLease;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What the Kotlin extensions need of a lease beyond the public {@link Lease} interface: the loss as a
 * synchronous fact, a removable loss watcher, an ending after the work under the lease, and a release
 * of a lease no work ran under.
 *
 * <p>For the engine's own leases ({@link EngineLease}) these ask the lease; for any other
 * {@link Lease} (a test double) they fall back to its {@link Lease#lost()} future.
 */
final class LeaseSignals {

    private LeaseSignals() {}

    /**
     * The loss of {@code lease} if it is lost (declaring it first if its validity has run out), or
     * null while it is valid or after a release.
     */
    static @Nullable LeaseLoss lossIfInvalid(Lease lease) {
        if (lease instanceof EngineLease) {
            return ((EngineLease) lease).lossIfInvalid();
        }
        CompletableFuture<LeaseLoss> lost = lease.lost();
        return lost.isDone() && !lost.isCompletedExceptionally() && !lost.isCancelled() ? lost.join() : null;
    }

    /**
     * Ends {@code lease} after the work under it, on the callback executor: releases it if it is still
     * held, and completes once its ending is final, with its loss if it ended lost (declared while the
     * work ran, or found by the release: the work may have overlapped with another holder), or null if
     * it was released (Redis confirmed it, or could not: the work ended in time either way). Never fails.
     */
    static CompletableFuture<@Nullable LeaseLoss> endAfterWork(Lease lease) {
        if (lease instanceof EngineLease) {
            return ((EngineLease) lease).endAfterWork();
        }
        // Any other Lease (a test double): its lost() future, or a release that found it gone while held.
        LeaseState before = lease.state();
        boolean held = before == LeaseState.HELD || before == LeaseState.UNCERTAIN;
        return lease.releaseAsync().handle((released, error) -> {
            LeaseLoss known = lossIfInvalid(lease);
            if (known == null && error == null && held && !Boolean.TRUE.equals(released)) {
                return new LeaseLoss(
                        lease.lockName(), lease.fencingToken(), LeaseLoss.Reason.STOLEN, Instant.now(), null);
            }
            return known;
        });
    }

    /**
     * Calls {@code watcher} once {@code lease} is lost: on the client's callback executor, before the
     * engine frees the lock for others (at once if it already is). The returned handle removes the
     * watcher, leaving no trace on the lease.
     */
    static AutoCloseable watchLoss(Lease lease, Consumer<LeaseLoss> watcher) {
        if (lease instanceof EngineLease) {
            return ((EngineLease) lease).watchLoss(watcher);
        }
        CompletableFuture<Void> dependent = lease.lost().thenAccept(watcher);
        return () -> dependent.cancel(false);
    }

    /**
     * Releases {@code lease}, whose caller gave up while it was on its way, so that no work ran under it:
     * at once, whatever the min-hold time, for the engine's own leases; a plain release for any other.
     */
    static CompletableFuture<Boolean> releaseUnused(Lease lease) {
        if (lease instanceof EngineLease) {
            return ((EngineLease) lease).releaseUnused();
        }
        return lease.releaseAsync();
    }
}
