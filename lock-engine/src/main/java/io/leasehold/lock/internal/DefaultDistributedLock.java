package io.leasehold.lock.internal;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseCallable;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseLostException;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockInfo;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.support.Checks;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A named handle; all state lives in the client's engine, so handles are cheap. Two handles of
 * the same client and name are equal, which is what reentrancy keys on: {@code lock(name)} and
 * {@code fairLock(name)} are the same lock, taken in a different order ({@link GrantOrder}).
 *
 * <p>This class is threadsafe.
 */
final class DefaultDistributedLock implements DistributedLock {

    private final DefaultLockClient client;
    private final String name;
    private final LockOptions options;
    private final GrantOrder order;

    DefaultDistributedLock(DefaultLockClient client, String name, LockOptions options) {
        this(client, name, options, GrantOrder.CLIENT_QUEUE);
    }

    DefaultDistributedLock(DefaultLockClient client, String name, LockOptions options, GrantOrder order) {
        this.client = client;
        this.name = name;
        this.options = options;
        this.order = order;
    }

    /** Who decides whose turn it is: this client's queue ({@code lock}), or the lock's queue in Redis ({@code fairLock}). */
    GrantOrder order() {
        return order;
    }

    DefaultLockClient client() {
        return client;
    }

    Engine engine() {
        return client.engine();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    // ---- acquiring ----------------------------------------------------------------------------

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration wait) {
        return startAcquisition(wait, false);
    }

    /** For blocking callers: the lease is handed over on the thread that got the reply, to a thread that only waits. */
    private CompletableFuture<Lease> acquireForBlockingCaller(Duration wait) {
        return startAcquisition(wait, true);
    }

    private CompletableFuture<Lease> startAcquisition(Duration wait, boolean direct) {
        Checks.notNegative("wait", wait, name);
        client.checkOpen(name);
        Acquisition acquisition = new Acquisition(this, wait, direct);
        client.acquisitionStarted(acquisition);
        return acquisition.start();
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration wait) {
        CompletableFuture<Lease> acquiring = acquireAsync(wait);
        CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
        result.whenComplete((value, error) -> {
            if (result.isCancelled()) {
                acquiring.cancel(false);
            }
        });
        // Runs on the callback executor, where the acquisition completes.
        acquiring.whenComplete((lease, error) -> {
            if (error == null) {
                if (!result.complete(Optional.of(lease))) {
                    ((DefaultLease) lease).releaseUnused(); // cancelled after the lease came: the caller never gets it
                }
            } else if (Futures.unwrap(error) instanceof LockTimeoutException) {
                result.complete(Optional.empty());
            } else {
                result.completeExceptionally(Futures.unwrap(error));
            }
        });
        return result;
    }

    @Override
    public Lease acquire(Duration wait) {
        return Futures.awaitLease(acquireForBlockingCaller(wait), name);
    }

    @Override
    public Optional<Lease> tryAcquire() {
        return tryAcquire(Duration.ZERO);
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait) {
        try {
            return Optional.of(acquire(wait));
        } catch (LockTimeoutException contended) {
            return Optional.empty();
        }
    }

    // ---- running under the lock ---------------------------------------------------------------

    @Override
    public <T> T callLocked(Duration wait, Callable<T> body) throws Exception {
        Checks.notNull("body", body, name);
        return callWithLease(wait, lease -> body.call());
    }

    @Override
    public <T> T callWithLease(Duration wait, LeaseCallable<T> body) throws Exception {
        Checks.notNull("body", body, name);
        ThreadHeldLeases.Hold hold = ThreadHeldLeases.hold(this);
        DefaultLease outer = hold == null ? null : hold.lease;
        if (outer != null && (outer.isHeld() || outer.loss() != null)) {
            // (Released by hand inside the outer body, or being released: acquire afresh below.)
            LeaseLoss loss = outer.lossIfInvalid();
            if (loss != null) {
                throw new LeaseLostException(loss);
            }
            // Reentrant: the outer call holds the lease and reacts to its loss; this one only counts.
            hold.depth++;
            try {
                return body.call(outer);
            } finally {
                hold.depth--;
            }
        }
        DefaultLease lease = (DefaultLease) acquire(wait);
        LeaseLoss lostAlready = lease.lossIfInvalid();
        if (lostAlready != null) {
            throw new LeaseLostException(lostAlready); // never start the body with a lease that is over
        }
        LossInterrupter interrupter = new LossInterrupter(Thread.currentThread());
        AutoCloseable hook = lease.onLossNow(interrupter::interrupt);
        ThreadHeldLeases.Hold replaced = ThreadHeldLeases.put(this, lease);
        T result = null;
        Throwable failure = null;
        try {
            result = body.call(lease);
        } catch (Throwable t) {
            failure = t;
        } finally {
            ThreadHeldLeases.restore(this, replaced);
            Futures.closeQuietly(hook);
            if (interrupter.disarm()) {
                Thread.interrupted(); // our interrupt, not the caller's: do not leak it
            }
        }
        return finishLocked(lease, result, failure);
    }

    /**
     * Releases, then reports how the lease ended: lost (declared while the body ran, or found by the
     * release: the body may have overlapped with another holder) wins over the body's outcome, which
     * is added as suppressed; otherwise the body's result or exception. A release Redis could not
     * confirm is no failure of the call: the body ended while the lease was valid (the listeners and
     * the log hear of it).
     */
    private <T> T finishLocked(DefaultLease lease, @Nullable T result, @Nullable Throwable failure) throws Exception {
        lease.releaseAfterWork().join(); // never fails; bounded by the release's own budget; ignores interrupts
        LeaseLoss loss = lease.loss();
        if (loss != null) {
            LeaseLostException lost = new LeaseLostException(loss);
            if (failure != null) {
                lost.addSuppressed(failure);
            }
            throw lost;
        }
        if (failure instanceof Exception) {
            throw (Exception) failure;
        }
        if (failure instanceof Error) {
            throw (Error) failure;
        }
        return result;
    }

    @Override
    public void runLocked(Duration wait, Runnable body) {
        Checks.notNull("body", body, name);
        runWithLease(wait, lease -> body.run());
    }

    @Override
    public void runWithLease(Duration wait, Consumer<Lease> body) {
        Checks.notNull("body", body, name);
        try {
            callWithLease(wait, lease -> {
                body.accept(lease);
                return null;
            });
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible); // a Consumer throws no checked exception
        }
    }

    @Override
    public <T> CompletableFuture<T> callLockedAsync(Duration wait, Function<Lease, ? extends CompletionStage<T>> body) {
        Checks.notNull("body", body, name);
        return LockedCall.start(this, wait, body);
    }

    // ---- looking -------------------------------------------------------------------------------

    @Override
    public boolean isHeldByCurrentThread() {
        return holdCount() > 0;
    }

    @Override
    public int holdCount() {
        ThreadHeldLeases.Hold hold = ThreadHeldLeases.hold(this);
        // Held means a valid lease: a body whose lease was lost, or released by hand, holds nothing.
        return hold != null && hold.lease.isValid() ? hold.depth : 0;
    }

    @Override
    public boolean isLocked() {
        return inspect().isPresent();
    }

    @Override
    public Optional<LockInfo> inspect() {
        Object reply = callBlocking("inspect", EngineScripts.INSPECT, List.of(engine().lockKey(name)), List.of());
        List<?> fields = Replies.asList(reply, "inspect");
        if (fields.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new LockInfo(
                name,
                Replies.asLong(fields.get(0), "inspect"),
                Duration.ofMillis(Math.max(0, Replies.asLong(fields.get(1), "inspect")))));
    }

    @Override
    public boolean forceRelease() {
        String publish = Futures.join(engine().publishCommand().exceptionally(error -> {
            throw new CompletionException(
                    new LockBackendException(name, "could not force-release", Futures.unwrap(error)));
        }));
        Object reply = callBlocking(
                "force-release",
                EngineScripts.FORCE_RELEASE,
                List.of(engine().lockKey(name), engine().channel(name)),
                List.of(publish));
        return Replies.asLong(reply, "force-release") == 1;
    }

    /** Runs a script and waits for its reply (bounded by the command timeout); a failure becomes {@link LockBackendException}. */
    private @Nullable Object callBlocking(String what, LuaScript script, List<String> keys, List<String> args) {
        client.checkOpen(name);
        return Futures.join(engine().call(script, keys, args).exceptionally(error -> {
            throw new CompletionException(new LockBackendException(name, "could not " + what, Futures.unwrap(error)));
        }));
    }

    @Override
    public boolean equals(@Nullable Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof DefaultDistributedLock)) {
            return false;
        }
        DefaultDistributedLock that = (DefaultDistributedLock) o;
        return client == that.client && name.equals(that.name);
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(client) * 31 + name.hashCode();
    }

    @Override
    public String toString() {
        return "DistributedLock{'" + name + "', " + (order == GrantOrder.REDIS_QUEUE ? "fair, " : "") + options + "}";
    }
}
