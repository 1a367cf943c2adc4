package io.leasehold.lock.spi;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What the API's Kotlin extensions ({@code withLock}, {@code awaitLoss}) ask of a lease made by a
 * {@link LockEngine}, beyond the public {@link Lease}: the loss as a synchronous fact, a removable
 * loss watcher, an ending after the work under the lease, and a release of a lease no work ran under. Any other {@link Lease} (a test
 * double) gets the same behaviour, built from its {@link Lease#lost()} and
 * {@link Lease#releaseAsync()}.
 *
 * <p>Only Leasehold's engine implements this, and only the API's own Kotlin extensions call it:
 * applications use {@link Lease}, and must not cast a lease to this type (its methods release the
 * lease or declare its loss). It may change between minor versions.
 */
public interface EngineLease extends Lease {

    /**
     * The loss if the lease is lost, declaring it first if its validity has run out but no timer has
     * noticed yet (a busy timer must not let a caller work under an expired lease); null while the
     * lease is valid, releasing, or after a release.
     */
    @Nullable
    LeaseLoss lossIfInvalid();

    /**
     * Calls {@code watcher} once the lease is lost: on the client's callback executor, before the
     * engine frees the lock for others (at once if it already is). The returned handle removes the
     * watcher, leaving no trace on the lease.
     */
    AutoCloseable watchLoss(Consumer<LeaseLoss> watcher);

    /**
     * Ends the lease after the work under it: releases it if it is still held, and completes on the
     * callback executor once its ending is final, with its loss if it ended lost (declared while the
     * work ran, or found by the release: the work may have overlapped with another holder), or null
     * if it was released (Redis confirmed it, or could not: the work ended in time either way). Never
     * fails.
     */
    CompletableFuture<@Nullable LeaseLoss> endAfterWork();

    /**
     * Releases a lease that no work ran under, its caller having given up while it was on its way: as
     * {@link Lease#releaseAsync()}, but at once, whatever {@link io.leasehold.lock.LockOptions#minHoldTime()}
     * says (which holds a lock for work done, not for a wait abandoned).
     */
    CompletableFuture<Boolean> releaseUnused();
}
