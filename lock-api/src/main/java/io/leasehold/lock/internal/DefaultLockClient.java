package io.leasehold.lock.internal;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The engine's root for one {@link LockClient}: hands out lock handles and tracks what must be
 * cleaned up on {@link #close()} — leases held, acquisitions waiting, subscriptions, renewal, and
 * the engine's threads.
 *
 * <p>This class is threadsafe.
 */
public final class DefaultLockClient implements LockClient, LeaseOwnerSide {

    private final Engine engine;
    private final Renewer renewer;
    private final WaitQueues waitQueues;
    private final LockOptions defaultOptions;
    private final Duration closeTimeout;
    private final Set<DefaultLease> held = ConcurrentHashMap.newKeySet();
    private final Set<Acquisition> acquiring = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    public DefaultLockClient(LockBackend backend, LockOptions defaultOptions, String keyPrefix, Duration commandTimeout,
            Duration closeTimeout, List<LockEventListener> listeners) {
        this.engine = new Engine(backend, keyPrefix, commandTimeout, new Listeners(listeners));
        this.renewer = new Renewer(engine);
        this.waitQueues = new WaitQueues(engine);
        this.defaultOptions = defaultOptions;
        this.closeTimeout = closeTimeout;
    }

    @Override
    public DistributedLock lock(String name) {
        return lock(name, defaultOptions);
    }

    @Override
    public DistributedLock lock(String name, LockOptions options) {
        Checks.lockName(name);
        Checks.notNull("options", options, name);
        checkOpen(name);
        return new DefaultDistributedLock(this, name, options);
    }

    @Override
    public LockOptions defaultOptions() {
        return defaultOptions;
    }

    @Override
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Closes in this order, all within the close timeout: stop accepting calls, end waiting
     * acquisitions (undoing any attempt that may have landed), release held leases, stop renewal,
     * drop subscriptions, stop threads, close the backend.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long deadline = System.nanoTime() + closeTimeout.toNanos();
        for (Acquisition waiting : new ArrayList<>(acquiring)) {
            waiting.abortClosed();
        }
        List<CompletableFuture<?>> releases = new ArrayList<>();
        for (DefaultLease lease : new ArrayList<>(held)) {
            releases.add(lease.releaseAsync().exceptionally(error -> false));
        }
        try {
            CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0]))
                    .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception timeoutOrFailure) {
            // Bounded close: whatever was not released expires after its lease time.
        }
        renewer.stop();
        engine.shutdown(Math.max(0, deadline - System.nanoTime()));
        engine.backend.close();
    }

    // ---- for the engine's parts -----------------------------------------------------------------

    Engine engine() {
        return engine;
    }

    WaitQueues waitQueues() {
        return waitQueues;
    }

    void checkOpen(String name) {
        if (closed.get()) {
            throw new IllegalStateException("client must be open, but was closed (lock '" + name + "')");
        }
    }

    void acquisitionStarted(Acquisition acquisition) {
        acquiring.add(acquisition);
    }

    void acquisitionEnded(Acquisition acquisition) {
        acquiring.remove(acquisition);
    }

    void leaseStarted(DefaultLease lease) {
        held.add(lease);
        if (lease.options.autoRenew()) {
            renewer.add(lease);
        }
        lease.armDeadline();
    }

    @Override
    public void leaseEnded(DefaultLease lease) {
        held.remove(lease);
        renewer.remove(lease);
    }

    @Override
    public Object renewalLock() {
        return renewer.lock;
    }
}
