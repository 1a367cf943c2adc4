package io.leasehold.lock.internal;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What one client's engine parts share: the backend, the key layout, the timer, the callback
 * executor and the listeners. Also the one place that calls the backend, so that every call gets the
 * command timeout and no driver exception escapes synchronously.
 *
 * <p><b>Which thread runs what</b> (G13):
 * <ul>
 *   <li>the driver's I/O threads complete backend futures; the engine's handling of a reply runs
 *       there, is short and never calls user code;</li>
 *   <li>the {@linkplain EngineTimer timer thread} renews leases, declares losses, ends waits; it
 *       never calls user code either;</li>
 *   <li>user-visible futures complete, and {@code callLockedAsync} bodies run, on the callback
 *       executor ({@link #toCaller}, {@link #runCallback});</li>
 *   <li>listeners run one after another on the event thread ({@link Listeners}).</li>
 * </ul>
 * So nothing a user does can hold up a renewal or a loss signal.
 *
 * <p>This class is threadsafe.
 */
final class Engine {

    /**
     * Idle TTL of the fencing counter; any value is safe because every token is at least the server's
     * TIME in microseconds, so a counter that expired (or fell behind) never repeats a token.
     */
    static final long FENCE_COUNTER_TTL_MS = Duration.ofDays(1).toMillis();

    /** A write hook that does nothing: for calls whose send time counts for nothing. */
    static final Runnable NOTHING = () -> {};

    static final long FIRST_CLEANUP_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_CLEANUP_RETRY_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** How long idle threads of the client's own callback pool live. */
    private static final long CALLBACK_KEEP_ALIVE_SECONDS = 5;

    final LockBackend backend;
    final String keyPrefix;
    final long commandTimeoutNanos;
    final Listeners listeners;
    final int clientId = LeaseholdThreads.nextClientId();
    final EngineTimer timer;
    private final CommandTimeouts commandTimeouts;
    private final Executor callbacks;
    /** The client's own callback pool, or null when the user gave an executor (which the client never shuts down). */
    private final @Nullable ExecutorService ownCallbacks;

    private final ExecutorService events;
    /** "SPUBLISH" or "PUBLISH", once the backend has said which; see {@link #publishCommand()}. */
    private volatile @Nullable String publishCommand;
    /** Releases whose resend waits on the timer, with the failure that made them wait; see {@link #failResend}. */
    private final Map<CompletableFuture<?>, Throwable> resendsPending = new ConcurrentHashMap<>();
    /**
     * Clean-up releases not settled yet (queued behind a handoff, or being retried), with their lock
     * names: {@code close()} waits for them within its bound, and names the locks of those it had to
     * leave ({@link #pendingCleanUps}).
     */
    private final Map<CompletableFuture<?>, String> cleanUps = new ConcurrentHashMap<>();
    /** Of those, the ones still waiting for what they follow, with how to send them (see {@link #sendDeferredCleanUpsNow}). */
    private final Map<CompletableFuture<?>, Runnable> deferredCleanUps = new ConcurrentHashMap<>();

    Engine(ClientSettings settings) {
        this.backend = settings.backend();
        this.keyPrefix = settings.keyPrefix();
        this.commandTimeoutNanos = settings.commandTimeout().toNanos();
        this.timer = new EngineTimer(settings.ticker(), clientId);
        this.commandTimeouts = new CommandTimeouts(timer, commandTimeoutNanos);
        // Unbounded as a queue: Listeners bounds what it enqueues (EventQueue), and lets the endings of
        // reported starts past that bound, which this queue must then not refuse.
        this.events = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.SECONDS,
                new java.util.concurrent.LinkedBlockingQueue<>(),
                LeaseholdThreads.forRole("events", clientId));
        this.listeners = new Listeners(settings.listeners(), events);
        if (settings.callbackExecutor() != null) {
            this.callbacks = settings.callbackExecutor();
            this.ownCallbacks = null;
        } else {
            ThreadPoolExecutor pool = new ThreadPoolExecutor(
                    0,
                    Integer.MAX_VALUE,
                    CALLBACK_KEEP_ALIVE_SECONDS,
                    TimeUnit.SECONDS,
                    new SynchronousQueue<>(),
                    LeaseholdThreads.forPool("callback", clientId));
            this.callbacks = pool;
            this.ownCallbacks = pool;
        }
    }

    /** The ticker's reading now: every deadline of the engine is on this clock. */
    long now() {
        return timer.now();
    }

    String lockKey(String name) {
        return LockKeys.lockKey(keyPrefix, name);
    }

    String fenceKey(String name) {
        return LockKeys.fenceKey(keyPrefix, name);
    }

    String channel(String name) {
        return LockKeys.releaseChannel(keyPrefix, name);
    }

    /**
     * Runs a script with the command timeout. {@code lateReply} (may be null) receives a reply that
     * arrives after the timeout already failed the call: the caller has moved on, but the command
     * ran, and an acquire may then have to be undone.
     */
    CompletableFuture<Object> call(
            LuaScript script, List<String> keys, List<String> args, @Nullable BiConsumer<Object, Throwable> lateReply) {
        return call(script, keys, args, lateReply, NOTHING);
    }

    /**
     * {@link #call(LuaScript, List, List, BiConsumer)}; {@code writing} runs when the backend writes the
     * command (see {@link LockBackend#eval(LuaScript, List, List, Runnable)}): the moment from which a
     * lease it grants or renews may count its validity.
     */
    CompletableFuture<Object> call(
            LuaScript script,
            List<String> keys,
            List<String> args,
            @Nullable BiConsumer<Object, Throwable> lateReply,
            Runnable writing) {
        return timed(script.name(), () -> backend.eval(script, keys, args, writing), lateReply);
    }

    CompletableFuture<Object> call(LuaScript script, List<String> keys, List<String> args) {
        return call(script, keys, args, null);
    }

    /**
     * The owner-checked release of lock {@code name}; its reply is 1 if this call deleted the lock,
     * or if {@code handedTo} (the owner an earlier handoff of this release granted it to; may be
     * null) holds it.
     */
    CompletableFuture<Object> release(String name, String owner, @Nullable String handedTo) {
        return timed(
                EngineScripts.RELEASE.name(),
                () -> publishCommand()
                        .thenCompose(publish -> backend.eval(
                                EngineScripts.RELEASE,
                                List.of(lockKey(name), channel(name)),
                                handedTo == null ? List.of(owner, publish) : List.of(owner, publish, handedTo))),
                null);
    }

    /**
     * A clean-up release (of an owner nobody holds a lease for, or of a lost lease): sent now, and
     * sent again with back-off while it fails transiently, for up to {@code leaseMs}, after which the
     * lock has expired anyway. A lock left behind by a clean-up that met a dropped connection would
     * otherwise hold every other node off for a whole lease.
     */
    void releaseEventually(String name, String owner, long leaseMs) {
        releaseEventuallyAfter(null, name, owner, leaseMs);
    }

    /**
     * {@link #releaseEventually}, sent once {@code before} (may be null) has completed, either way:
     * tracked from now on, so that {@code close()} waits for it.
     */
    void releaseEventuallyAfter(@Nullable CompletableFuture<?> before, String name, String owner, long leaseMs) {
        CompletableFuture<Object> settled = new CompletableFuture<>();
        long budget = TimeUnit.MILLISECONDS.toNanos(leaseMs);
        Runnable settle =
                () -> releaseRetrying(name, owner, budget).whenComplete((reply, error) -> settled.complete(null));
        cleanUps.put(settled, name);
        settled.whenComplete((done, error) -> cleanUps.remove(settled));
        if (before == null) {
            settle.run();
            return;
        }
        // close() may send it ahead, near the end of its timeout (see sendDeferredCleanUpsNow); it is
        // settled only by the release that follows what it waits for, which may yet take the lock.
        deferredCleanUps.put(settled, () -> releaseRetrying(name, owner, budget));
        before.whenComplete((done, error) -> {
            deferredCleanUps.remove(settled);
            settle.run();
        });
    }

    /** Clean-up releases not settled yet, each with its lock's name (for {@code close()}). */
    Map<CompletableFuture<?>, String> pendingCleanUps() {
        return Map.copyOf(cleanUps);
    }

    /**
     * Sends now every clean-up still waiting for what it was to follow (a handoff that has not settled,
     * an attempt still on its way): for {@code close()} near its end, since once the client is closed
     * nothing more is sent, and a clean-up left for later would leave its lock for a lease time; the
     * false loss it may cause a handoff still being resent is the lesser harm. Each is sent again once
     * what it follows settles, and only that settles it: an attempt that lands in the rest of
     * {@code close()}'s timeout is undone too.
     */
    void sendDeferredCleanUpsNow() {
        for (CompletableFuture<?> cleanUp : List.copyOf(deferredCleanUps.keySet())) {
            Runnable send = deferredCleanUps.remove(cleanUp);
            if (send != null) {
                send.run();
            }
        }
    }

    /**
     * The owner-checked release, sent again with back-off while it fails transiently and
     * {@code budgetNanos} have not passed (so safe to repeat: it deletes the lock only for this
     * owner). The future has the first reply, or the last failure.
     *
     * <p>Replies of release.lua: 1 deleted, 0 absent, -1 someone else's. A resend follows an attempt
     * whose outcome is unknown, so its answer is read by {@link ReleaseReply#answered}: absent counts
     * as deleted, and someone else's lock is {@linkplain ReleaseReply#inconclusive inconclusive}.
     */
    CompletableFuture<ReleaseReply> releaseRetrying(String name, String owner, long budgetNanos) {
        return releaseRetrying(name, owner, budgetNanos, null);
    }

    /**
     * {@link #releaseRetrying(String, String, long)}, handing the lock to {@code next} (may be null)
     * in the same call: see {@link HandoffRelease}.
     */
    CompletableFuture<ReleaseReply> releaseRetrying(
            String name, String owner, long budgetNanos, @Nullable HandoffTarget next) {
        CompletableFuture<ReleaseReply> done = new CompletableFuture<>();
        if (next == null) {
            releaseUntil(name, owner, null, now() + budgetNanos, FIRST_CLEANUP_RETRY_NANOS, false, done);
        } else {
            new HandoffRelease(this, name, owner, next, now() + budgetNanos, done)
                    .send(HandoffRelease.FIRST_RESEND_NANOS);
        }
        return done;
    }

    /** handoff.lua with a handoff's arguments (see {@link HandoffTarget#args}), with the command timeout. */
    CompletableFuture<Object> handoffCall(String name, String owner, HandoffTarget next, Runnable writing) {
        return timed(
                EngineScripts.HANDOFF.name(),
                () -> publishCommand()
                        .thenCompose(publish -> backend.eval(
                                EngineScripts.HANDOFF,
                                List.of(
                                        lockKey(name),
                                        fenceKey(name),
                                        channel(name),
                                        LockKeys.yieldMarkerKey(keyPrefix, name)),
                                next.args(owner, publish),
                                writing)),
                next::onLateReply);
    }

    /**
     * The plain owner-checked release, sent now and again while it fails transiently and the budget
     * lasts; {@code handedTo} is the owner an earlier handoff of this release may have granted the
     * lock to (see release.lua), and {@code resent} says whether an earlier send's outcome is unknown.
     */
    void releaseUntil(
            String name,
            String owner,
            @Nullable String handedTo,
            long giveUpAt,
            long backoffNanos,
            boolean resent,
            CompletableFuture<ReleaseReply> done) {
        release(name, owner, handedTo).whenComplete((reply, error) -> {
            long code;
            if (error == null) {
                try {
                    code = Replies.asLong(reply, "release");
                } catch (RuntimeException malformed) {
                    done.completeExceptionally(malformed);
                    return;
                }
                done.complete(ReleaseReply.answered(code, resent, false, now()));
            } else if (!isTransient(error)
                    || !resendLater(
                            done,
                            error,
                            giveUpAt,
                            backoffNanos,
                            () -> releaseUntil(
                                    name,
                                    owner,
                                    handedTo,
                                    giveUpAt,
                                    Math.min(backoffNanos * 2, MAX_CLEANUP_RETRY_NANOS),
                                    true,
                                    done))) {
                done.completeExceptionally(DefaultLease.unwrap(error));
            }
        });
    }

    /**
     * Runs {@code resend} on the timer after {@code backoffNanos}, if that is before {@code giveUpAt}
     * and the timer runs; returns false (scheduling nothing) otherwise. While it waits, {@code done} is
     * pending: if the timer stops first, {@code done} fails with {@code error} (see {@link #failResend}).
     */
    boolean resendLater(CompletableFuture<?> done, Throwable error, long giveUpAt, long backoffNanos, Runnable resend) {
        if (now() + backoffNanos - giveUpAt >= 0 || timer.isShutDown()) {
            return false;
        }
        resendsPending.put(done, DefaultLease.unwrap(error));
        timer.schedule(
                () -> {
                    if (resendsPending.remove(done) != null) {
                        resend.run();
                    }
                },
                backoffNanos);
        if (timer.isShutDown()) {
            failResend(done); // shut down meanwhile: the resend may have been dropped with the timer
        }
        return true;
    }

    /**
     * Ends a release whose resend waits on the timer, with the failure that made it wait, if it is
     * still waiting: called when the timer stops, which drops the resend, so that no release future
     * (and no caller blocked on it) waits forever.
     */
    private void failResend(CompletableFuture<?> done) {
        Throwable cause = resendsPending.remove(done);
        if (cause != null) {
            done.completeExceptionally(cause);
        }
    }

    /**
     * The command the scripts publish release messages with, matching how the backend subscribes.
     * Asked of the backend on first use (never when the client is built, so that building one never
     * waits for Redis), and kept once known; until then a failure carries the backend's real cause.
     */
    CompletableFuture<String> publishCommand() {
        String known = publishCommand;
        if (known != null) {
            return CompletableFuture.completedFuture(known);
        }
        CompletableFuture<Boolean> sharded;
        try {
            sharded = backend.shardedPubSub();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return sharded.thenApply(isSharded -> {
            String command = Boolean.TRUE.equals(isSharded) ? "SPUBLISH" : "PUBLISH";
            publishCommand = command;
            return command;
        });
    }

    /** Releases whose resend waits on the timer (for {@link EngineFootprint}). */
    int releaseResends() {
        return resendsPending.size();
    }

    /** Calls watched for their command timeout, answered ones not yet pruned (for {@link EngineFootprint}). */
    int watchedCalls() {
        return commandTimeouts.size();
    }

    /** Whether the backend says {@code failure} may go away if the call is retried. */
    boolean isTransient(Throwable failure) {
        try {
            return backend.isTransient(DefaultLease.unwrap(failure));
        } catch (RuntimeException brokenClassifier) {
            return false;
        }
    }

    /**
     * A future for the caller that follows {@code internal} but completes on the callback executor,
     * so that the caller's dependent actions never run on an I/O or timer thread. Cancelling the
     * returned future does not touch {@code internal}.
     */
    <T> CompletableFuture<T> toCaller(CompletableFuture<T> internal) {
        CompletableFuture<T> visible = new CompletableFuture<>();
        internal.whenComplete((value, error) -> runCallback(() -> {
            if (error == null) {
                visible.complete(value);
            } else {
                visible.completeExceptionally(DefaultLease.unwrap(error));
            }
        }));
        return visible;
    }

    /**
     * Runs {@code task} (which may call user code) on the callback executor. If that executor refuses
     * (the client's own pool after close, or a user's executor that is shut down), the common pool
     * runs it: never the calling I/O or timer thread, and never dropped, so no caller waits forever.
     */
    void runCallback(Runnable task) {
        try {
            callbacks.execute(task);
        } catch (RejectedExecutionException refused) {
            ForkJoinPool.commonPool().execute(task);
        }
    }

    /** Stops the timer, lets queued callbacks and events run, and stops the client's own threads, within {@code nanos}. */
    void shutdown(long nanos) {
        long deadline = System.nanoTime() + nanos;
        try {
            timer.shutdown(remaining(deadline));
            // The timer that enforced the command timeout is gone: end the calls still waiting now.
            commandTimeouts.failAll(() -> new TimeoutException("no reply before the client closed"));
            // Before the event thread stops: a failed release still tells its listeners of the lease's end.
            List.copyOf(resendsPending.keySet()).forEach(this::failResend);
            events.shutdown();
            if (ownCallbacks != null) {
                ownCallbacks.shutdown();
            }
            if (!events.awaitTermination(remaining(deadline), TimeUnit.NANOSECONDS)) {
                events.shutdownNow(); // a listener that blocks past the close timeout is interrupted
            }
            if (ownCallbacks != null && !ownCallbacks.awaitTermination(remaining(deadline), TimeUnit.NANOSECONDS)) {
                ownCallbacks.shutdownNow(); // so is user code that blocks a callback thread past it
            }
        } catch (InterruptedException e) {
            events.shutdownNow();
            if (ownCallbacks != null) {
                ownCallbacks.shutdownNow();
            }
            Thread.currentThread().interrupt();
        }
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    /** Sends with the command timeout; the late reply of a timed-out call goes to {@code lateReply}. */
    private CompletableFuture<Object> timed(
            String what, Supplier<CompletableFuture<Object>> send, @Nullable BiConsumer<Object, Throwable> lateReply) {
        long sent = now();
        CompletableFuture<Object> raw;
        try {
            raw = send.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Object> result = new CompletableFuture<>();
        raw.whenComplete((reply, error) -> {
            boolean first =
                    error == null ? result.complete(reply) : result.completeExceptionally(DefaultLease.unwrap(error));
            if (!first && lateReply != null) {
                lateReply.accept(reply, error);
            }
        });
        if (!result.isDone()) { // (an in-process backend may have answered already)
            commandTimeouts.watch(
                    result,
                    sent,
                    () -> new TimeoutException("no reply to '" + what + "' within the command timeout of "
                            + Durations.human(Duration.ofNanos(commandTimeoutNanos))));
        }
        return result;
    }
}
