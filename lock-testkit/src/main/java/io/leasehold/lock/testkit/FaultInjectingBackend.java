package io.leasehold.lock.testkit;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link LockBackend} decorator that injects the faults a real network has: a reply that never
 * arrives although the command ran ({@link #loseNextReply()}), and latency before each command
 * reaches Redis ({@link #setLatency(Duration)}). Only {@link #eval} is affected;
 * {@link #subscribe}, {@link #slot}, {@link #shardedPubSub} and {@link #close} delegate untouched.
 *
 * <p>Several decorators can share one {@link Faults} (as {@code RedisLockBackendFixture} does), so
 * that one switch applies to all of them and "the next reply" means the next one across all.
 *
 * <p>Latency never blocks the caller: the call is forwarded later from a daemon thread named
 * {@code leasehold-fault-latency}, which {@link #close()} stops.
 *
 * <p>This class is threadsafe.
 */
public final class FaultInjectingBackend extends ForwardingLockBackend {

    private final Faults faults;
    private final Set<CompletableFuture<Object>> delayed = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Object schedulerLock = new Object();
    private ScheduledExecutorService scheduler; // guarded by schedulerLock, created on first delayed call

    /** Decorates {@code delegate} with its own, initially inactive, fault switches. */
    public FaultInjectingBackend(LockBackend delegate) {
        this(delegate, new Faults());
    }

    /** Decorates {@code delegate} with fault switches shared with other decorators. */
    public FaultInjectingBackend(LockBackend delegate, Faults faults) {
        super(delegate);
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /** The next {@link #eval} (across every decorator sharing these faults) runs, but its future never completes. */
    public void loseNextReply() {
        faults.loseNextReply();
    }

    /** Delays every later {@link #eval} by {@code latency} before forwarding it; {@link Duration#ZERO} removes it. */
    public void setLatency(Duration latency) {
        faults.setLatency(latency);
    }

    /** Clears both faults (calls already delayed or lost stay so). */
    public void reset() {
        faults.reset();
    }

    /** The switches this decorator reads. */
    public Faults faults() {
        return faults;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        boolean lose = faults.takeReplyLoss();
        Duration latency = faults.latency();
        CompletableFuture<Object> reply = latency.isZero() ? forward(script, keys, args) : forwardLater(latency, script, keys, args);
        if (lose) {
            // The command still runs in Redis; only its answer is dropped, as when a connection dies mid-reply.
            return new CompletableFuture<>();
        }
        return reply;
    }

    private CompletableFuture<Object> forward(LuaScript script, List<String> keys, List<String> args) {
        try {
            return super.eval(script, keys, args);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<Object> forwardLater(Duration latency, LuaScript script, List<String> keys, List<String> args) {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        delayed.add(reply);
        Runnable send = () -> {
            delayed.remove(reply);
            forward(script, keys, args).whenComplete((value, error) -> {
                if (error != null) {
                    reply.completeExceptionally(error);
                } else {
                    reply.complete(value);
                }
            });
        };
        try {
            scheduler().schedule(send, latency.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException | IllegalStateException e) {
            delayed.remove(reply);
            reply.completeExceptionally(new IllegalStateException("FaultInjectingBackend is closed; cannot delay " + script.name(), e));
        }
        return reply;
    }

    private ScheduledExecutorService scheduler() {
        synchronized (schedulerLock) {
            if (closed.get()) {
                throw new IllegalStateException("closed");
            }
            if (scheduler == null) {
                scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "leasehold-fault-latency");
                    thread.setDaemon(true);
                    return thread;
                });
            }
            return scheduler;
        }
    }

    /**
     * Stops the latency thread, fails calls still waiting to be forwarded, and closes the delegate.
     * Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ScheduledExecutorService toStop;
        synchronized (schedulerLock) {
            toStop = scheduler;
        }
        if (toStop != null) {
            toStop.shutdownNow();
            try {
                toStop.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (CompletableFuture<Object> reply : delayed) {
            reply.completeExceptionally(new IllegalStateException(
                    "FaultInjectingBackend was closed before this delayed eval was forwarded"));
        }
        delayed.clear();
        super.close();
    }

    /**
     * The fault switches, shareable between decorators.
     *
     * <p>This class is threadsafe.
     */
    public static final class Faults {

        private final AtomicBoolean loseNextReply = new AtomicBoolean();
        private final AtomicLong lostReplies = new AtomicLong();
        private volatile Duration latency = Duration.ZERO;

        /** Arms the loss of the next reply (arming twice before a call still loses one). */
        public void loseNextReply() {
            loseNextReply.set(true);
        }

        /** Sets the delay before each eval is forwarded; {@link Duration#ZERO} removes it. */
        public void setLatency(Duration latency) {
            Objects.requireNonNull(latency, "latency");
            if (latency.isNegative()) {
                throw new IllegalArgumentException("latency must not be negative, but was " + latency);
            }
            this.latency = latency;
        }

        /** Disarms reply loss and removes latency. */
        public void reset() {
            loseNextReply.set(false);
            latency = Duration.ZERO;
        }

        public Duration latency() {
            return latency;
        }

        /** True while a reply loss is armed and no eval has consumed it yet. */
        public boolean replyLossArmed() {
            return loseNextReply.get();
        }

        /** How many replies were dropped so far. */
        public long lostReplies() {
            return lostReplies.get();
        }

        boolean takeReplyLoss() {
            boolean take = loseNextReply.compareAndSet(true, false);
            if (take) {
                lostReplies.incrementAndGet();
            }
            return take;
        }
    }
}
