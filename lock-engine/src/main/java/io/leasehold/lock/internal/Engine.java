package io.leasehold.lock.internal;

import io.leasehold.lock.spi.ClientSettings;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.support.Durations;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Function;
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

    /** How long idle threads of the client's own callback pool live, beyond the one that always waits. */
    private static final long CALLBACK_KEEP_ALIVE_SECONDS = 5;

    final LockBackend backend;
    final String keyPrefix;
    final long commandTimeoutNanos;
    final Listeners listeners;
    final int clientId = LeaseholdThreads.nextClientId();
    final EngineTimer timer;
    private final CommandTimeouts commandTimeouts;
    /**
     * The timeout of a fair waiter's call ({@link #placeCall}): the command timeout, but at most
     * {@link GrantOrder#WAITER_RENEW_MS}, so that a lost reply costs the waiter neither its place in
     * Redis's queue (which lapses after {@link GrantOrder#WAITER_LEASE_MS}) nor a grant made to it
     * meanwhile: its retry, with the same owner, keeps the one and takes the other.
     */
    final long placeTimeoutNanos;

    private final CommandTimeouts placeTimeouts;
    private final Executor callbacks;
    /** The client's own callback pool, or null when the user gave an executor (which the client never shuts down). */
    private final @Nullable ExecutorService ownCallbacks;

    private final ExecutorService events;
    /** "SPUBLISH" or "PUBLISH", once the backend has said which; see {@link #publishCommand()}. */
    private volatile @Nullable String publishCommand;

    Engine(ClientSettings settings) {
        this.backend = settings.backend();
        this.keyPrefix = settings.keyPrefix();
        this.commandTimeoutNanos = settings.commandTimeout().toNanos();
        this.timer = new EngineTimer(settings.ticker(), clientId);
        this.commandTimeouts = new CommandTimeouts(timer, commandTimeoutNanos);
        this.placeTimeoutNanos =
                Math.min(commandTimeoutNanos, TimeUnit.MILLISECONDS.toNanos(GrantOrder.WAITER_RENEW_MS));
        this.placeTimeouts = new CommandTimeouts(timer, placeTimeoutNanos);
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
            // One thread waits from the start: a loss signal must not wait for a thread to be made (on a
            // starved machine that took up to 600 ms); the pool grows past it while callbacks block.
            ThreadPoolExecutor pool = new ThreadPoolExecutor(
                    1,
                    Integer.MAX_VALUE,
                    CALLBACK_KEEP_ALIVE_SECONDS,
                    TimeUnit.SECONDS,
                    new SynchronousQueue<>(),
                    LeaseholdThreads.forPool("callback", clientId));
            pool.prestartCoreThread();
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
        return timedCall(script.name(), () -> backend.eval(script, keys, args, writing), lateReply);
    }

    CompletableFuture<Object> call(LuaScript script, List<String> keys, List<String> args) {
        return call(script, keys, args, null);
    }

    /**
     * {@link #call(LuaScript, List, List, BiConsumer, Runnable)} for a script whose ARGV names the
     * publish command ({@code args} builds it from {@link #publishCommand}, which is asked of the
     * backend within the same timeout: a backend that never answers fails the call in time); with
     * {@link #placeTimeoutNanos} for a fair waiter ({@code place}).
     */
    CompletableFuture<Object> publishingCall(
            LuaScript script,
            List<String> keys,
            Function<String, List<String>> args,
            @Nullable BiConsumer<Object, Throwable> lateReply,
            Runnable writing,
            boolean place) {
        Supplier<CompletableFuture<Object>> send =
                () -> publishCommand().thenCompose(publish -> backend.eval(script, keys, args.apply(publish), writing));
        return place
                ? timedCall(
                        send,
                        lateReply,
                        placeTimeouts,
                        () -> new PlaceTimeoutException("no reply to '" + script.name() + "' within the "
                                + Durations.human(Duration.ofNanos(placeTimeoutNanos))
                                + " a fair waiter's call first waits (the command timeout is "
                                + Durations.human(Duration.ofNanos(commandTimeoutNanos)) + ")"))
                : timedCall(script.name(), send, lateReply);
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

    /** Calls watched for their command timeout, answered ones not yet pruned (for {@link io.leasehold.lock.LockClientDiagnostics}). */
    int watchedCalls() {
        return commandTimeouts.size() + placeTimeouts.size();
    }

    /** Whether the backend says {@code failure} may go away if the call is retried. */
    boolean isTransient(Throwable failure) {
        try {
            return backend.isTransient(Futures.unwrap(failure));
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
                visible.completeExceptionally(Futures.unwrap(error));
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

    /**
     * Stops the timer, lets queued callbacks and events run, and stops the client's own threads, within
     * {@code nanos}; {@code timerStopped} runs once the timer has stopped, before the event thread does
     * (a release whose resend the timer dropped must still tell its listeners of the lease's end).
     */
    void shutdown(long nanos, Runnable timerStopped) {
        long deadline = System.nanoTime() + nanos;
        try {
            timer.shutdown(remaining(deadline));
            // The timer that enforced the command timeout is gone: end the calls still waiting now.
            commandTimeouts.failAll(() -> new TimeoutException("no reply before the client closed"));
            placeTimeouts.failAll(() -> new TimeoutException("no reply before the client closed"));
            timerStopped.run();
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

    /**
     * Sends with the command timeout; the late reply of a timed-out call goes to {@code lateReply}.
     * {@code what} names the command in the timeout's message.
     */
    CompletableFuture<Object> timedCall(
            String what, Supplier<CompletableFuture<Object>> send, @Nullable BiConsumer<Object, Throwable> lateReply) {
        return timedCall(
                send,
                lateReply,
                commandTimeouts,
                () -> new TimeoutException("no reply to '" + what + "' within the command timeout of "
                        + Durations.human(Duration.ofNanos(commandTimeoutNanos))));
    }

    private CompletableFuture<Object> timedCall(
            Supplier<CompletableFuture<Object>> send,
            @Nullable BiConsumer<Object, Throwable> lateReply,
            CommandTimeouts timeouts,
            Supplier<TimeoutException> timedOut) {
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
                    error == null ? result.complete(reply) : result.completeExceptionally(Futures.unwrap(error));
            if (!first && lateReply != null) {
                lateReply.accept(reply, error);
            }
        });
        if (!result.isDone()) { // (an in-process backend may have answered already)
            timeouts.watch(result, sent, timedOut);
        }
        return result;
    }
}
