package io.leasehold.lock.inmemory;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * The shared "server" behind an {@link InMemoryLockBackend} and all its nodes: clock, keyspace,
 * pub/sub, fault switches, and the call pipeline (fault checks, latency, atomic execution, reply).
 *
 * <p>One monitor — the store's — makes each script execution atomic. Futures are completed only
 * after it is released; a script's publish happens under it, but merely queues the message for the
 * pub/sub thread, so no listener ever runs while the store is locked.
 *
 * <p>This class is threadsafe.
 */
final class InMemoryCore {

    static final String LATENCY_THREAD = "leasehold-inmemory-latency";

    final Clock clock;
    final FaultSwitches faults = new FaultSwitches();
    final PubSubHub hub = new PubSubHub();
    private final InMemoryStore store = new InMemoryStore();
    private final ScriptEmulator emulator = new ScriptEmulator(store, hub);
    private final DaemonThreads delayThreads = new DaemonThreads(LATENCY_THREAD);
    private final ScheduledThreadPoolExecutor delays = new ScheduledThreadPoolExecutor(1, delayThreads);
    /**
     * Futures waiting out a latency — script calls not yet run, subscribe confirmations not yet
     * sent — each with what close must say it was closed before; failed on close so that no caller hangs.
     */
    private final Map<CompletableFuture<?>, String> delayed = new ConcurrentHashMap<>();

    private final AtomicBoolean closed = new AtomicBoolean();
    /** Guards {@link #frozen} and {@link #parked}. */
    private final Object freezeLock = new Object();
    /** Whether the store is frozen: calls wait, unanswered, until {@link #thaw()} (as a SIGSTOPped server). */
    private boolean frozen;
    /** Calls that arrived while frozen, in order, each with how to run it; run by {@link #thaw()}, failed by close. */
    private final Map<CompletableFuture<?>, Runnable> parked = new LinkedHashMap<>();

    InMemoryCore(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        delays.setRemoveOnCancelPolicy(true);
    }

    CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        Objects.requireNonNull(script, "script");
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(args, "args");
        String name = script.name();
        List<String> keyCopy;
        List<String> argCopy;
        try {
            keyCopy = List.copyOf(keys);
            argCopy = List.copyOf(args);
        } catch (NullPointerException e) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("keys and args of script '" + name
                    + "' must not contain null, but were keys=" + keys + ", args=" + args));
        }
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedError("script '" + name + "' was not run"));
        }
        try {
            ScriptEmulator.requireBundled(script);
        } catch (UnsupportedOperationException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (faults.unavailable()) {
            return CompletableFuture.failedFuture(unavailableError("script '" + name + "' was not run"));
        }
        CompletableFuture<Object> reply = new CompletableFuture<>();
        Duration latency = faults.latency();
        if (latency.isZero()) {
            execute(name, keyCopy, argCopy, reply);
            return reply;
        }
        delayLatency(
                latency,
                reply,
                "the delayed call to script '" + name + "' ran",
                () -> execute(name, keyCopy, argCopy, reply),
                () -> reply.completeExceptionally(closedError("script '" + name + "' was not run")));
        return reply;
    }

    CompletableFuture<Subscription> subscribe(String channel, MessageListener listener, Consumer<Subscription> onEnd) {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(listener, "listener");
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedError("cannot subscribe to channel '" + channel + "'"));
        }
        if (faults.unavailable()) {
            return CompletableFuture.failedFuture(unavailableError("cannot subscribe to channel '" + channel + "'"));
        }
        Subscription subscription = hub.subscribe(channel, listener, onEnd);
        Duration latency = faults.subscribeLatency();
        if (latency.isZero()) {
            CompletableFuture<Subscription> confirmed = new CompletableFuture<>();
            if (!parkIfFrozen(confirmed, () -> confirmed.complete(subscription))) {
                confirmed.complete(subscription);
            }
            return confirmed;
        }
        // Subscribed now (messages may already arrive); only the confirmation is late.
        CompletableFuture<Subscription> confirmed = new CompletableFuture<>();
        delayLatency(
                latency,
                confirmed,
                "the delayed confirmation of the subscription to channel '" + channel + "'",
                () -> confirmed.complete(subscription),
                () -> {
                    subscription.unsubscribe();
                    confirmed.completeExceptionally(closedError("cannot subscribe to channel '" + channel + "'"));
                });
        return confirmed;
    }

    /**
     * Runs {@code action} on the latency thread after {@code latency}, unless close fails
     * {@code pending} first (saying it was closed before {@code what}); runs {@code rejected} at once
     * when the backend is already closing.
     */
    private void delayLatency(
            Duration latency, CompletableFuture<?> pending, String what, Runnable action, Runnable rejected) {
        delayed.put(pending, what);
        try {
            delays.schedule(
                    () -> {
                        if (delayed.remove(pending) != null) {
                            action.run();
                        }
                    },
                    saturatedNanos(latency),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            delayed.remove(pending);
            rejected.run();
        }
    }

    /** Runs an administrative operation on the store, atomically, at the clock's current millisecond. */
    <T> T admin(LongFunction<T> operation) {
        synchronized (store) {
            return operation.apply(clock.millis());
        }
    }

    /** The store itself, for {@link #admin} operations; only to be used inside one. */
    InMemoryStore store() {
        return store;
    }

    /** Freezes the store: from now on calls are neither run nor answered until {@link #thaw()}. */
    void freeze() {
        synchronized (freezeLock) {
            frozen = true;
        }
    }

    /** Ends {@link #freeze()}: the calls that waited run now, in the order they arrived, and are answered. */
    void thaw() {
        List<Runnable> waiting;
        synchronized (freezeLock) {
            frozen = false;
            waiting = new ArrayList<>(parked.values());
            parked.clear();
        }
        waiting.forEach(Runnable::run);
    }

    /** Parks {@code pending}'s {@code run} if the store is frozen; false (doing nothing) otherwise. */
    private boolean parkIfFrozen(CompletableFuture<?> pending, Runnable run) {
        synchronized (freezeLock) {
            if (!frozen) {
                return false;
            }
            parked.put(pending, run);
            return true;
        }
    }

    void makeAvailable() {
        if (faults.makeAvailable()) {
            hub.resubscribedAll();
        }
    }

    void resetFaults() {
        thaw();
        if (faults.reset()) {
            hub.resubscribedAll();
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Fails delayed calls and confirmations, ends all subscriptions and stops both threads. Idempotent. */
    void close(long timeoutMillis) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        delays.shutdownNow();
        delayed.forEach((pending, what) -> {
            if (delayed.remove(pending) != null) {
                pending.completeExceptionally(closedError("closed before " + what));
            }
        });
        List<CompletableFuture<?>> frozenCalls;
        synchronized (freezeLock) {
            frozenCalls = new ArrayList<>(parked.keySet());
            parked.clear();
        }
        frozenCalls.forEach(pending -> pending.completeExceptionally(closedError("closed while frozen")));
        hub.close(timeoutMillis);
        delayThreads.awaitStopped(delays, timeoutMillis);
    }

    private void execute(String name, List<String> keys, List<String> args, CompletableFuture<Object> reply) {
        if (closed.get()) {
            reply.completeExceptionally(closedError("script '" + name + "' was not run"));
            return;
        }
        if (faults.unavailable()) {
            reply.completeExceptionally(unavailableError("script '" + name + "' was not run"));
            return;
        }
        if (parkIfFrozen(reply, () -> execute(name, keys, args, reply))) {
            return;
        }
        Object result = null;
        RuntimeException error = null;
        boolean lost;
        synchronized (store) {
            lost = faults.takeLostReply();
            try {
                Instant now = clock.instant();
                result = emulator.run(name, new ScriptCall(name, keys, args, now.toEpochMilli(), epochMicros(now)));
            } catch (RuntimeException e) {
                error = e;
            }
        }
        // Completed outside the store lock: the caller's callbacks may well call eval again.
        if (lost) {
            return;
        }
        if (error != null) {
            reply.completeExceptionally(error);
        } else {
            reply.complete(result);
        }
    }

    private static long epochMicros(Instant now) {
        return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1_000L);
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static ConnectException unavailableError(String what) {
        return new ConnectException("the in-memory backend was made unavailable (makeUnavailable()): " + what);
    }

    private static IllegalStateException closedError(String what) {
        return new IllegalStateException("the in-memory backend is closed: " + what);
    }
}
