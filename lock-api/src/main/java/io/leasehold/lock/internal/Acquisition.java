package io.leasehold.lock.internal;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockException;
import io.leasehold.lock.LockTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One call's attempt to take a lock, waiting up to its deadline.
 *
 * <p>It makes one immediate attempt; when contended it joins the name's local FIFO
 * ({@link WaitQueues}), and as head retries on a release message, on a resubscription, or when the
 * holder's TTL runs out (the fallback): no polling (G7). Every attempt uses the same random owner, so
 * a retried acquire is idempotent.
 *
 * <p>Clean cancellation (G8): once any attempt was sent, ending without a lease (cancel, timeout,
 * interrupt, backend error, close) releases with that owner; an attempt whose reply arrives after
 * the caller gave up is released again when it arrives, and one whose reply never arrives is
 * released when the command timeout fails it. Release is owner-checked, so these are harmless when
 * nothing was taken.
 *
 * <p>This class is threadsafe; its fields are guarded by {@code this}.
 */
final class Acquisition {

    private static final long MIN_FALLBACK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final DefaultDistributedLock lock;
    private final Engine engine;
    private final String owner = OwnerIds.next();
    private final Duration wait;
    private final long startNanos = System.nanoTime();
    private final long deadlineNanos;
    private final CompletableFuture<Lease> result = new CompletableFuture<>();
    /** The same for every attempt: same owner, so that a retried acquire is idempotent. */
    private final List<String> acquireKeys;
    private final List<String> acquireArgs;
    private boolean inFlight;
    private boolean wakePending;
    private boolean queued;
    private boolean sentAny;
    private @Nullable ScheduledFuture<?> fallbackTimer;
    private @Nullable ScheduledFuture<?> deadlineTimer;

    Acquisition(DefaultDistributedLock lock, Duration wait) {
        this.lock = lock;
        this.engine = lock.engine();
        this.wait = wait;
        this.deadlineNanos = startNanos + wait.toNanos();
        this.acquireKeys = List.of(engine.lockKey(lock.name()), engine.fenceKey(lock.name()));
        this.acquireArgs = List.of(owner, Long.toString(lock.options().leaseTime().toMillis()),
                Long.toString(Engine.FENCE_COUNTER_TTL_MS));
    }

    CompletableFuture<Lease> start() {
        result.whenComplete((lease, error) -> {
            if (result.isCancelled()) {
                finish(true);
            }
        });
        if (!wait.isZero()) {
            ScheduledFuture<?> timer = engine.schedule(this::onDeadline, deadlineNanos - System.nanoTime());
            synchronized (this) {
                deadlineTimer = timer;
            }
        }
        attempt();
        return result;
    }

    /** Called by the wait queue (release message, resubscription, became head) and the fallback timer. */
    void wake() {
        if (!lock.client().waitQueues().isHead(lock.name(), this)) {
            return;
        }
        attempt();
    }

    /** Ends the wait because the client closed, undoing any attempt that may have landed. */
    void abortClosed() {
        if (result.completeExceptionally(new IllegalStateException(
                "client must be open, but was closed while waiting (lock '" + lock.name() + "')"))) {
            finish(true);
        }
    }

    private void attempt() {
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            if (inFlight) {
                wakePending = true; // a release raced the attempt in flight: try again after its reply
                return;
            }
            inFlight = true;
            wakePending = false;
            sentAny = true;
            cancel(fallbackTimer);
            fallbackTimer = null;
        }
        long sent = System.nanoTime();
        engine.call(EngineScripts.ACQUIRE, acquireKeys, acquireArgs, (lateReply, lateError) -> releaseOwner())
                .whenComplete((reply, error) -> onReply(reply, error, sent));
    }

    /**
     * Handles an attempt's reply. The attempt stays "in flight" until the reply has been acted on:
     * a wake-up meanwhile only sets {@code wakePending}. Otherwise a release message arriving between
     * the reply and its handling would send a second acquire with the same owner, which (being
     * idempotent) also succeeds, and undoing that duplicate would delete the caller's own lock.
     */
    private void onReply(@Nullable Object reply, @Nullable Throwable error, long sent) {
        long status;
        long token;
        long holderTtlMs;
        try {
            if (error != null) {
                throw error;
            }
            List<?> fields = Replies.asList(reply, "acquire");
            status = Replies.asLong(fields.get(0), "acquire");
            token = Replies.asLong(fields.get(1), "acquire");
            holderTtlMs = Replies.asLong(fields.get(2), "acquire");
        } catch (Throwable failure) {
            fail(new LockBackendException(lock.name(), "could not acquire", DefaultLease.unwrap(failure)));
            return;
        }
        if (status == 1) {
            acquired(token, sent);
        } else {
            contended(holderTtlMs);
        }
    }

    private void acquired(long token, long sent) {
        DefaultLease lease = new DefaultLease(engine, lock.client(), lock.name(), owner, lock.options(), token, sent);
        lock.client().leaseStarted(lease);
        if (result.complete(lease)) {
            finish(false);
            engine.listeners.acquired(lock.name(), token, waited());
        } else {
            lease.releaseAsync(); // the caller gave up while the reply was on its way
        }
    }

    private void contended(long holderTtlMs) {
        if (result.isDone()) {
            return;
        }
        long now = System.nanoTime();
        if (now - deadlineNanos >= 0) {
            LockTimeoutException timeout = new LockTimeoutException(lock.name(), wait);
            if (result.completeExceptionally(timeout)) {
                finish(false);
                engine.listeners.acquireFailed(lock.name(), timeout, waited());
            }
            return;
        }
        boolean retryNow;
        synchronized (this) {
            inFlight = false; // from here on a wake-up may start the next attempt
            if (!queued) {
                queued = true;
                joinQueue();
                return;
            }
            retryNow = wakePending;
            if (!retryNow) {
                long fallback = Math.max(TimeUnit.MILLISECONDS.toNanos(holderTtlMs), MIN_FALLBACK_NANOS);
                fallbackTimer = engine.schedule(this::wake, Math.min(fallback, deadlineNanos - now));
            }
        }
        if (retryNow) {
            wake();
        }
    }

    private void joinQueue() {
        CompletableFuture<?> subscribed = lock.client().waitQueues().join(lock.name(), this);
        ScheduledFuture<?> timer = engine.schedule(() -> subscribed.completeExceptionally(new TimeoutException(
                "no subscription confirmed within the command timeout")), engine.commandTimeoutNanos);
        subscribed.whenComplete((subscription, error) -> {
            cancel(timer);
            if (error != null) {
                fail(new LockBackendException(lock.name(), "could not subscribe to the release channel",
                        DefaultLease.unwrap(error)));
            } else {
                wake(); // retry once subscribed: a release before the subscription would otherwise be missed
            }
        });
    }

    private void onDeadline() {
        synchronized (this) {
            if (inFlight || result.isDone()) {
                return; // the reply decides
            }
        }
        contended(0);
    }

    private void fail(LockException failure) {
        if (result.completeExceptionally(failure)) {
            finish(true);
            engine.listeners.acquireFailed(lock.name(), failure, waited());
        } else {
            releaseOwner();
        }
    }

    /** Leaves the queue and stops the timers; with {@code cleanUp}, undoes any attempt that may have landed. */
    private void finish(boolean cleanUp) {
        boolean wasQueued;
        boolean sent;
        synchronized (this) {
            cancel(fallbackTimer);
            cancel(deadlineTimer);
            fallbackTimer = null;
            deadlineTimer = null;
            wasQueued = queued;
            sent = sentAny;
        }
        lock.client().acquisitionEnded(this);
        if (wasQueued) {
            lock.client().waitQueues().leave(lock.name(), this);
        }
        if (cleanUp && sent) {
            releaseOwner();
        }
    }

    private void releaseOwner() {
        engine.release(lock.name(), owner);
    }

    private Duration waited() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private static void cancel(@Nullable ScheduledFuture<?> timer) {
        if (timer != null) {
            timer.cancel(false);
        }
    }
}
