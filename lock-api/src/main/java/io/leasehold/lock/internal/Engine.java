package io.leasehold.lock.internal;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * What one client's engine parts share: the backend, the key layout, the timer thread, the event
 * thread and the listeners. Also the one place that calls the backend, so that every call gets the
 * command timeout and no driver exception escapes synchronously.
 *
 * <p>This class is threadsafe.
 */
final class Engine {

    /** Idle TTL of the fencing counter; any value is safe because a lost counter is re-seeded from TIME. */
    static final long FENCE_COUNTER_TTL_MS = Duration.ofDays(1).toMillis();

    final LockBackend backend;
    final String keyPrefix;
    final long commandTimeoutNanos;
    final Listeners listeners;
    /** "SPUBLISH" or "PUBLISH", once the backend has said which; see {@link #publishCommand()}. */
    private volatile String publishCommand;
    final int clientId = LeaseholdThreads.nextClientId();
    private final ScheduledThreadPoolExecutor timers;
    private final ExecutorService events;

    Engine(LockBackend backend, String keyPrefix, Duration commandTimeout, Listeners listeners) {
        this.backend = backend;
        this.keyPrefix = keyPrefix;
        this.commandTimeoutNanos = commandTimeout.toNanos();
        this.listeners = listeners;
        this.timers = new ScheduledThreadPoolExecutor(1, LeaseholdThreads.forRole("timer", clientId));
        this.timers.setRemoveOnCancelPolicy(true);
        this.timers.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.events = Executors.newSingleThreadExecutor(LeaseholdThreads.forRole("events", clientId));
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
     * ran, and an acquire must then be undone.
     */
    CompletableFuture<Object> call(LuaScript script, List<String> keys, List<String> args,
            BiConsumer<Object, Throwable> lateReply) {
        CompletableFuture<Object> raw;
        try {
            raw = backend.eval(script, keys, args);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Object> timed = new CompletableFuture<>();
        ScheduledFuture<?> timer = schedule(() -> timed.completeExceptionally(new TimeoutException(
                "no reply to '" + script.name() + "' within the command timeout of "
                        + Duration.ofNanos(commandTimeoutNanos))), commandTimeoutNanos);
        raw.whenComplete((reply, error) -> {
            if (timer != null) {
                timer.cancel(false);
            }
            boolean first = error == null ? timed.complete(reply) : timed.completeExceptionally(error);
            if (!first && lateReply != null) {
                lateReply.accept(reply, error);
            }
        });
        return timed;
    }

    CompletableFuture<Object> call(LuaScript script, List<String> keys, List<String> args) {
        return call(script, keys, args, null);
    }

    /** The owner-checked release of lock {@code name}; its reply is 1 if this call deleted the lock. */
    CompletableFuture<Object> release(String name, String owner) {
        return publishCommand().thenCompose(publish ->
                call(EngineScripts.RELEASE, List.of(lockKey(name), channel(name)), List.of(owner, publish)));
    }

    /**
     * The command the scripts publish release messages with, matching how the backend subscribes.
     * Asked of the backend on first use (never in the constructor, so that building a client never
     * blocks on Redis), and kept once known.
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
            String command = isSharded ? "SPUBLISH" : "PUBLISH";
            publishCommand = command;
            return command;
        });
    }

    /** Schedules on the timer thread; returns null (and runs nothing) once the client has shut down. */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        try {
            return timers.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shutDown) {
            return null;
        }
    }

    /** Runs user-facing completions (lost futures) off the driver's I/O threads. */
    void fireEvent(Runnable task) {
        try {
            events.execute(task);
        } catch (RejectedExecutionException shutDown) {
            task.run();
        }
    }

    /** Stops the engine's threads, waiting at most {@code nanos}. */
    void shutdown(long nanos) {
        timers.shutdownNow();
        events.shutdown();
        try {
            long deadline = System.nanoTime() + nanos;
            timers.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (!events.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                events.shutdownNow();
            }
        } catch (InterruptedException e) {
            events.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
