package io.leasehold.lock.internal;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The engine's root for one {@link LockClient}: hands out lock handles and tracks what must be
 * cleaned up on {@link #close()} — leases held, acquisitions waiting, subscriptions, renewal, the
 * engine's threads and the backend.
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
    /** The latest lease of this client per lock name, while it lasts (for waiters of the name; see {@link #localHolderValidityLeft}). */
    private final ConcurrentMap<String, DefaultLease> holders = new ConcurrentHashMap<>();

    private final AtomicBoolean closed = new AtomicBoolean();

    /** Builds the engine; never calls Redis, so it never blocks. */
    public DefaultLockClient(ClientSettings settings) {
        this.engine = new Engine(settings);
        this.renewer = new Renewer(engine);
        this.waitQueues = new WaitQueues(engine);
        this.defaultOptions = settings.defaultOptions();
        this.closeTimeout = settings.closeTimeout();
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
     * Closes in this order, the whole within the close timeout: stop accepting calls, end waiting
     * acquisitions (undoing any attempt that may have landed), release held leases, stop renewal,
     * stop the engine's threads (letting queued callbacks and events run), close the backend. A
     * backend that takes longer is left closing on a daemon thread of its own
     * ({@code leasehold-close-<client>}), which ends when the backend is done.
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
        waitQueues.closeAll(); // lingering subscriptions too (see WaitQueues)
        List<CompletableFuture<?>> releases = new ArrayList<>();
        for (DefaultLease lease : new ArrayList<>(held)) {
            releases.add(lease.releaseInternal().exceptionally(error -> false));
        }
        awaitQuietly(CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0])), deadline);
        renewer.stop();
        engine.shutdown(remaining(deadline));
        awaitQuietly(closeBackend(), deadline);
    }

    /** Starts closing the backend on a thread of its own, so that a backend whose close blocks cannot stretch ours. */
    private CompletableFuture<Void> closeBackend() {
        CompletableFuture<Void> closedBackend = new CompletableFuture<>();
        Thread closer = LeaseholdThreads.forRole("close", engine.clientId).newThread(() -> {
            try {
                engine.backend.closeAsync().whenComplete((ignored, error) -> closedBackend.complete(null));
            } catch (RuntimeException e) {
                closedBackend.complete(null);
            }
        });
        closer.start();
        return closedBackend;
    }

    private static void awaitQuietly(CompletableFuture<?> future, long deadline) {
        try {
            future.get(remaining(deadline), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception timeoutOrFailure) {
            // Bounded close: whatever was not released expires after its lease time.
        }
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    // ---- for the engine's parts -----------------------------------------------------------------

    Engine engine() {
        return engine;
    }

    WaitQueues waitQueues() {
        return waitQueues;
    }

    /** What this client's engine keeps right now (see {@link EngineFootprint}). */
    EngineFootprint footprint() {
        return new EngineFootprint(
                waitQueues.waitedNames(),
                waitQueues.subscribedNames(),
                acquiring.size(),
                held.size(),
                holders.size(),
                renewer.size(),
                renewer.scheduled(),
                engine.releaseResends(),
                engine.watchedCalls(),
                engine.timer.taskCount());
    }

    void checkOpen(String name) {
        if (closed.get()) {
            throw new IllegalStateException("client must be open, but was closed (lock '" + name + "')");
        }
    }

    void acquisitionStarted(Acquisition acquisition) {
        acquiring.add(acquisition);
        if (closed.get()) {
            acquisition.abortClosed(); // lost a race with close(): end it like close() would have
        }
    }

    void acquisitionEnded(Acquisition acquisition) {
        acquiring.remove(acquisition);
    }

    void leaseStarted(DefaultLease lease) {
        held.add(lease);
        holders.put(lease.name, lease);
        if (lease.options.autoRenew()) {
            renewer.add(lease);
        }
        lease.armDeadline();
    }

    /** Whether a lease of this client holds the lock {@code name} right now (for an honest timeout message). */
    boolean holdsLease(String name) {
        for (DefaultLease lease : held) {
            if (lease.name.equals(name) && lease.isHeld()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the blocking caller on {@code thread} holds lock {@code name} itself (G10), so that its
     * timeout can say it re-entered: through that thread's {@code callLocked} ({@code threadLease},
     * null if none) or a lease the thread took with a blocking {@code acquire} and still holds.
     */
    boolean heldByCallerThread(String name, Thread thread, @Nullable DefaultLease threadLease) {
        if (threadLease != null && threadLease.isHeld()) {
            return true;
        }
        for (DefaultLease lease : held) {
            if (lease.takenBy == thread && lease.name.equals(name) && lease.isHeld()) {
                return true;
            }
        }
        return false;
    }

    /**
     * How long the lease of this client that holds lock {@code name} stays valid, or 0 if none does:
     * its waiters need not ask Redis meanwhile, since its release hands the lock over.
     */
    long localHolderValidityLeft(String name) {
        DefaultLease holder = holders.get(name);
        return holder != null && holder.isHeld() ? Math.max(0, holder.validityLeftNanos()) : 0;
    }

    @Override
    public void leaseEnded(DefaultLease lease) {
        held.remove(lease);
        holders.remove(lease.name, lease);
        renewer.remove(lease);
        if (lease.loss() != null) {
            // Lost, so no release will hand the lock over: the head asks Redis, once the holder was told.
            lease.settled().thenRun(() -> waitQueues.wakeHead(lease.name));
        }
    }

    @Override
    public @Nullable HandoffTarget claimHandoff(String name, int releasingStreak) {
        return closed.get() ? null : waitQueues.claimHandoff(name, releasingStreak);
    }

    @Override
    public void validityLowered(DefaultLease lease) {
        if (lease.options.autoRenew()) {
            renewer.validityLowered(lease);
        }
    }

    @Override
    public Object renewalLock() {
        return renewer.lock;
    }
}
