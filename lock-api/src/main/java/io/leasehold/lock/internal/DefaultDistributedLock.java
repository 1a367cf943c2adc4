package io.leasehold.lock.internal;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseLostException;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockInfo;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A named handle; all state lives in the client's engine, so handles are cheap. Two handles of
 * the same client and name are equal, which is what reentrancy keys on.
 *
 * <p>This class is threadsafe.
 */
final class DefaultDistributedLock implements DistributedLock {

    private final DefaultLockClient client;
    private final String name;
    private final LockOptions options;

    DefaultDistributedLock(DefaultLockClient client, String name, LockOptions options) {
        this.client = client;
        this.name = name;
        this.options = options;
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
        Checks.notNegative("wait", wait, name);
        client.checkOpen(name);
        Acquisition acquisition = new Acquisition(this, wait);
        client.acquisitionStarted(acquisition);
        return acquisition.start();
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration wait) {
        CompletableFuture<Lease> acquisition = acquireAsync(wait);
        return Futures.cancelling(acquisition, acquisition.handle((lease, error) -> {
            if (error == null) {
                return Optional.of(lease);
            }
            if (DefaultLease.unwrap(error) instanceof LockTimeoutException) {
                return Optional.empty();
            }
            throw error instanceof CompletionException ? (CompletionException) error : new CompletionException(error);
        }));
    }

    @Override
    public Lease acquire(Duration wait) {
        return Futures.awaitLease(acquireAsync(wait), name);
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
        DefaultLease outer = ThreadHeldLeases.get(this);
        if (outer != null) {
            LeaseLoss loss = outer.loss();
            if (loss != null) {
                throw new LeaseLostException(loss);
            }
            return body.call(); // reentrant: the outer call holds the lease and reacts to its loss
        }
        DefaultLease lease = (DefaultLease) acquire(wait);
        LossInterrupter interrupter = new LossInterrupter(Thread.currentThread());
        lease.lost().thenRun(interrupter::interrupt);
        ThreadHeldLeases.put(this, lease);
        T result = null;
        Throwable failure = null;
        try {
            result = body.call();
        } catch (Throwable t) {
            failure = t;
        } finally {
            ThreadHeldLeases.remove(this);
            if (interrupter.disarm()) {
                Thread.interrupted(); // our interrupt, not the caller's: do not leak it
            }
        }
        return finishLocked(lease, result, failure);
    }

    private <T> T finishLocked(DefaultLease lease, @Nullable T result, @Nullable Throwable failure) throws Exception {
        Throwable outcome = failure;
        try {
            lease.release();
        } catch (LockBackendException releaseFailed) {
            if (outcome == null) {
                outcome = releaseFailed;
            } else {
                outcome.addSuppressed(releaseFailed);
            }
        }
        LeaseLoss loss = lease.loss();
        if (loss != null) {
            LeaseLostException lost = new LeaseLostException(loss);
            if (outcome != null) {
                lost.addSuppressed(outcome);
            }
            throw lost;
        }
        if (outcome instanceof Exception) {
            throw (Exception) outcome;
        }
        if (outcome instanceof Error) {
            throw (Error) outcome;
        }
        return result;
    }

    @Override
    public void runLocked(Duration wait, Runnable body) {
        Checks.notNull("body", body, name);
        try {
            callLocked(wait, () -> {
                body.run();
                return null;
            });
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible); // a Runnable throws no checked exception
        }
    }

    @Override
    public <T> CompletableFuture<T> callLockedAsync(Duration wait, Function<Lease, ? extends CompletionStage<T>> body) {
        Checks.notNull("body", body, name);
        CompletableFuture<Lease> acquisition = acquireAsync(wait);
        CompletableFuture<T> outcome = Futures.cancelling(acquisition, new CompletableFuture<>());
        acquisition.whenComplete((lease, error) -> {
            if (error != null) {
                outcome.completeExceptionally(DefaultLease.unwrap(error));
                return;
            }
            CompletableFuture<T> work;
            try {
                work = body.apply(lease).toCompletableFuture();
            } catch (Throwable t) {
                work = CompletableFuture.failedFuture(t);
            }
            CompletableFuture<T> running = work;
            lease.lost().thenAccept(loss -> {
                outcome.completeExceptionally(new LeaseLostException(loss));
                running.cancel(false); // tell the body, if it listens; the lock is already gone
            });
            running.whenComplete((value, bodyError) -> lease.releaseAsync().whenComplete((released, releaseError) -> {
                if (bodyError != null) {
                    outcome.completeExceptionally(DefaultLease.unwrap(bodyError));
                } else if (releaseError != null) {
                    outcome.completeExceptionally(DefaultLease.unwrap(releaseError));
                } else {
                    outcome.complete(value);
                }
            }));
        });
        return outcome;
    }

    // ---- looking -------------------------------------------------------------------------------

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
        return Optional.of(new LockInfo(name, Replies.asLong(fields.get(0), "inspect"),
                Duration.ofMillis(Math.max(0, Replies.asLong(fields.get(1), "inspect")))));
    }

    @Override
    public boolean forceRelease() {
        String publish = DefaultLease.join(engine().publishCommand().exceptionally(error -> {
            throw new CompletionException(new LockBackendException(name, "could not force-release", DefaultLease.unwrap(error)));
        }));
        Object reply = callBlocking("force-release", EngineScripts.FORCE_RELEASE,
                List.of(engine().lockKey(name), engine().channel(name)), List.of(publish));
        return Replies.asLong(reply, "force-release") == 1;
    }

    /** Runs a script and waits for its reply (bounded by the command timeout); a failure becomes {@link LockBackendException}. */
    private @Nullable Object callBlocking(String what, LuaScript script, List<String> keys, List<String> args) {
        client.checkOpen(name);
        return DefaultLease.join(engine().call(script, keys, args).exceptionally(error -> {
            throw new CompletionException(new LockBackendException(name, "could not " + what, DefaultLease.unwrap(error)));
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
        return "DistributedLock{'" + name + "', " + options + "}";
    }
}
