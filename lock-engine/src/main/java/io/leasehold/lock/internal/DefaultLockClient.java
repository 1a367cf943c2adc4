package io.leasehold.lock.internal;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockClientDiagnostics;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.ClientSettings;
import io.leasehold.lock.spi.support.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
public final class DefaultLockClient implements LockClient {

    private final Engine engine;
    private final ReleaseSender releases;
    private final Renewer renewer;
    private final WaitQueues waitQueues;
    private final LockOptions defaultOptions;
    private final Duration closeTimeout;
    private final Set<DefaultLease> held = ConcurrentHashMap.newKeySet();
    /** Leases that ended (releasing, or lost) and have not settled yet: {@code close()} waits for them. */
    private final Set<DefaultLease> ending = ConcurrentHashMap.newKeySet();

    private final Set<Acquisition> acquiring = ConcurrentHashMap.newKeySet();
    /** The latest lease of this client per lock name, while it lasts (for waiters of the name; see {@link #localHolderValidityLeft}). */
    private final ConcurrentMap<String, DefaultLease> holders = new ConcurrentHashMap<>();

    private final AtomicBoolean closed = new AtomicBoolean();

    /** Builds the engine; never calls Redis, so it never blocks. */
    public DefaultLockClient(ClientSettings settings) {
        this.engine = new Engine(settings);
        this.releases = new ReleaseSender(engine);
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
        return handle(name, options, GrantOrder.CLIENT_QUEUE);
    }

    @Override
    public DistributedLock fairLock(String name) {
        return fairLock(name, defaultOptions);
    }

    @Override
    public DistributedLock fairLock(String name, LockOptions options) {
        return handle(name, options, GrantOrder.REDIS_QUEUE);
    }

    private DistributedLock handle(String name, LockOptions options, GrantOrder order) {
        Checks.lockName(name);
        Checks.notNull("options", options, name);
        engine.backend.leaseCap().ifPresent(cap -> {
            if (options.minHoldTime().compareTo(cap) > 0) {
                throw new IllegalArgumentException("minHoldTime must be at most the backend's longest lease (" + cap
                        + "), but was " + options.minHoldTime() + Checks.where(name));
            }
        });
        checkOpen(name);
        return new DefaultDistributedLock(this, name, options, order);
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
     * Closes in this order, the whole within the close timeout: stop accepting calls; end waiting
     * acquisitions (their clean-ups of any attempt that may have landed go out, each once the handoff
     * it may be waiting on and its attempt still on its way (within its command timeout) have settled;
     * if that takes three quarters of the close timeout, at once, and again if the attempt lands
     * within the rest); end held leases as lost
     * ({@link io.leasehold.lock.LeaseLoss.Reason#CLIENT_CLOSED}: each holder is told, then its lock
     * released); wait for every release and clean-up in flight, including releases asked for before
     * {@code close()}; only then stop renewal and the engine's threads (letting queued callbacks and
     * events run) and close the backend. Whatever could not be settled within the timeout is logged by
     * lock name (WARNING), and stays in Redis until its lease time runs out. A backend that takes
     * longer to close is left closing on a daemon thread of its own ({@code leasehold-close-<client>}),
     * which ends when the backend is done.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long deadline = System.nanoTime() + closeTimeout.toNanos();
        List<CompletableFuture<?>> acquisitionsFinished = new ArrayList<>();
        for (Acquisition waiting : new ArrayList<>(acquiring)) {
            waiting.abortClosed();
            // (one that another thread is ending may not have registered its clean-up yet)
            acquisitionsFinished.add(waiting.finished());
        }
        waitQueues.closeAll(); // lingering subscriptions too (see WaitQueues)
        Map<CompletableFuture<?>, String> endings = new HashMap<>();
        List<DefaultLease> ended = new ArrayList<>();
        for (DefaultLease lease : new ArrayList<>(held)) {
            endings.put(lease.endByClose(), lease.name);
            ended.add(lease);
        }
        for (DefaultLease lease : new ArrayList<>(ending)) {
            endings.put(lease.settled(), lease.name);
            ended.add(lease);
        }
        // Most of the budget for the releases to settle; the rest for clean-ups sent at once if not.
        long forceAt = deadline - closeTimeout.toNanos() / 4;
        awaitQuietly(endings.keySet(), forceAt);
        // Holders the callback executor has not told yet (it may be this very thread): told here, then freed.
        ended.forEach(DefaultLease::tellNowIfUntold);
        // Lost leases' releases and acquisitions' clean-ups were sent (or queued) while they settled.
        awaitQuietly(acquisitionsFinished, forceAt);
        awaitQuietly(releases.pendingCleanUps().keySet(), forceAt);
        releases.sendDeferredCleanUpsNow();
        Map<CompletableFuture<?>, String> cleanUps = releases.pendingCleanUps();
        awaitQuietly(cleanUps.keySet(), deadline);
        awaitQuietly(endings.keySet(), deadline);
        Set<String> left = new TreeSet<>();
        endings.forEach((future, name) -> {
            if (!future.isDone()) {
                left.add(name);
            }
        });
        cleanUps.forEach((future, name) -> {
            if (!future.isDone()) {
                left.add(name);
            }
        });
        if (!left.isEmpty()) {
            EngineLog.closeLeftLocks(engine.clientId, left, closeTimeout);
        }
        renewer.stop();
        engine.shutdown(remaining(deadline), releases::failWaitingResends);
        awaitQuietly(List.of(closeBackend()), deadline);
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

    /**
     * Waits for {@code futures} until {@code deadline}, through interrupts (the bound is the close
     * timeout either way; a thread that closes its client from inside its own {@code callLocked} body
     * is interrupted by that very close), setting the interrupt flag again afterwards.
     */
    private static void awaitQuietly(Collection<? extends CompletableFuture<?>> futures, long deadline) {
        CompletableFuture<Void> all = CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]));
        boolean interrupted = false;
        while (true) {
            try {
                all.get(remaining(deadline), TimeUnit.NANOSECONDS);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (Exception timeoutOrFailure) {
                break; // Bounded close: what was not settled expires after its lease time (and is named in the log).
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    // ---- for the engine's parts -----------------------------------------------------------------

    Engine engine() {
        return engine;
    }

    ReleaseSender releases() {
        return releases;
    }

    WaitQueues waitQueues() {
        return waitQueues;
    }

    @Override
    public LockClientDiagnostics diagnostics() {
        return new LockClientDiagnostics(
                waitQueues.waitedNames(),
                waitQueues.subscribedNames(),
                acquiring.size(),
                held.size() + ending.size(),
                holders.size(),
                renewer.size(),
                renewer.scheduled(),
                releases.resendsWaiting(),
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

    /** {@code lease} ended (releasing, or lost): stop renewing it, and keep it only until it settles. */
    void leaseEnded(DefaultLease lease, boolean staysTaken) {
        held.remove(lease);
        ending.add(lease);
        lease.settled().whenComplete((settled, error) -> ending.remove(lease));
        holders.remove(lease.name, lease);
        renewer.remove(lease);
        if (lease.loss() != null || staysTaken || engine.backend.grantsAreComposed()) {
            // Lost, so no release will hand the lock over: the head asks Redis, once the holder was told.
            // Released under a min-hold time, the lock stays taken with a new TTL, and no message will
            // say when it ends: the head asks once that TTL is set, and waits for it.
            // Where grants are composed, no release hands it over either: the head asks once the release
            // settled, rather than only when the release's message reaches it (which may be late, or lost).
            lease.settled().thenRun(() -> waitQueues.wakeHead(lease.name));
        }
    }

    /**
     * A local waiter of lock {@code name} that a releasing lease may hand the lock to, claimed; or
     * null (none can take it now, or the client is closed). {@code releasingStreak} is the releasing
     * lease's {@link DefaultLease#handoffStreak}.
     */
    @Nullable
    Handoff claimHandoff(String name, int releasingStreak) {
        return closed.get() ? null : waitQueues.claimHandoff(name, releasingStreak);
    }

    /** The lease's validity may have dropped (an extend to a shorter time was sent): renew in time for it. */
    void validityLowered(DefaultLease lease) {
        if (lease.options.autoRenew()) {
            renewer.validityLowered(lease);
        }
    }

    /** Has the watchdog keep a fair waiter's place in Redis's wait queue alive, until the place is cancelled. */
    void keepPlace(WaiterPlace place) {
        renewer.keepPlace(place);
    }

    /** Redis confirmed a TTL command of {@code lease} other than the watchdog's own (an extend). */
    void ttlConfirmed(DefaultLease lease) {
        renewer.confirmedElsewhere(lease);
    }

    /** What the watchdog knows of {@code lease}'s renewal (why it may be lost). */
    RenewalReport renewal(DefaultLease lease) {
        return renewer.report(lease);
    }
}
