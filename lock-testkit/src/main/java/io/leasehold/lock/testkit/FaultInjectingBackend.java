package io.leasehold.lock.testkit;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import io.leasehold.lock.spi.support.Checks;
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
 * arrives although the command ran ({@link #loseNextReply()}), latency before each command
 * reaches Redis ({@link #setLatency(Duration)}), and a slow subscribe confirmation
 * ({@link #setSubscribeLatency(Duration)}). {@link #slot}, {@link #shardedPubSub},
 * {@link #isTransient} and {@link #close} delegate untouched.
 *
 * <p>Several decorators can share one {@link Faults} (as {@code RedisLockBackendFixture} does), so
 * that one switch applies to all of them and "the next reply" means the next one across all.
 *
 * <p>Latency never blocks the caller: a delayed eval is forwarded later, and a delayed subscribe
 * confirmation relayed later, from a daemon thread named {@code leasehold-fault-latency}, which
 * {@link #close()} stops.
 *
 * <p>This class is threadsafe.
 */
public final class FaultInjectingBackend extends ForwardingLockBackend {

    private final Faults faults;
    /** Evals not yet forwarded and subscribe confirmations not yet relayed; failed on close. */
    private final Set<CompletableFuture<?>> delayed = ConcurrentHashMap.newKeySet();

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

    /**
     * Makes every later {@link #subscribe} slow to confirm: it is forwarded at once, but its future
     * completes only after {@code latency} (and after the delegate's own confirmation);
     * {@link Duration#ZERO} removes it.
     */
    public void setSubscribeLatency(Duration latency) {
        faults.setSubscribeLatency(latency);
    }

    /** Clears every fault (calls already delayed or lost stay so). */
    public void reset() {
        faults.reset();
    }

    /** The switches this decorator reads. */
    public Faults faults() {
        return faults;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        return eval(script, keys, args, () -> {});
    }

    /**
     * With a latency, the write moment is taken at once (the injected latency stands for the network,
     * after the write); without one, the delegate's driver reports it.
     */
    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args, Runnable writing) {
        boolean lose = faults.takeReplyLoss();
        Duration latency = faults.latency();
        CompletableFuture<Object> reply;
        if (latency.isZero()) {
            reply = forward(script, keys, args, writing);
        } else {
            writing.run();
            reply = forwardLater(latency, script, keys, args);
        }
        if (lose) {
            // The command still runs in Redis; only its answer is dropped, as when a connection dies mid-reply.
            return new CompletableFuture<>();
        }
        return reply;
    }

    /**
     * Subscribes through the delegate at once; with a subscribe latency, relays the delegate's
     * outcome only once the latency has passed, from the latency thread (or from the delegate's
     * thread, if it answers later still).
     */
    @Override
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        Duration latency = faults.subscribeLatency();
        CompletableFuture<Subscription> subscribed;
        try {
            subscribed = super.subscribe(channel, listener);
        } catch (RuntimeException e) {
            subscribed = CompletableFuture.failedFuture(e);
        }
        if (latency.isZero()) {
            return subscribed;
        }
        CompletableFuture<Subscription> confirmed = new CompletableFuture<>();
        CompletableFuture<Subscription> outcome = subscribed;
        schedule(
                latency,
                confirmed,
                () -> outcome.whenComplete((subscription, error) -> {
                    if (error != null) {
                        confirmed.completeExceptionally(error);
                    } else {
                        confirmed.complete(subscription);
                    }
                }),
                "the subscription to " + channel);
        return confirmed;
    }

    private CompletableFuture<Object> forward(
            LuaScript script, List<String> keys, List<String> args, Runnable writing) {
        try {
            return delegate().eval(script, keys, args, writing);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<Object> forwardLater(
            Duration latency, LuaScript script, List<String> keys, List<String> args) {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        schedule(
                latency,
                reply,
                () -> forward(script, keys, args, () -> {}).whenComplete((value, error) -> {
                    if (error != null) {
                        reply.completeExceptionally(error);
                    } else {
                        reply.complete(value);
                    }
                }),
                script.name());
        return reply;
    }

    /** Runs {@code action} on the latency thread after {@code latency}; fails {@code pending} when closed. */
    private void schedule(Duration latency, CompletableFuture<?> pending, Runnable action, String what) {
        delayed.add(pending);
        Runnable run = () -> {
            delayed.remove(pending);
            action.run();
        };
        try {
            scheduler().schedule(run, saturatedNanos(latency), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException | IllegalStateException e) {
            delayed.remove(pending);
            pending.completeExceptionally(
                    new IllegalStateException("FaultInjectingBackend is closed; cannot delay " + what, e));
        }
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
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
     * Stops the latency thread, fails calls still waiting to be forwarded and subscribe
     * confirmations still waiting to be relayed, and closes the delegate (which ends its subscriptions).
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
        for (CompletableFuture<?> pending : delayed) {
            pending.completeExceptionally(
                    new IllegalStateException(
                            "FaultInjectingBackend was closed before this delayed eval was forwarded or subscription confirmed"));
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
        private volatile Duration subscribeLatency = Duration.ZERO;

        /** Arms the loss of the next reply (arming twice before a call still loses one). */
        public void loseNextReply() {
            loseNextReply.set(true);
        }

        /**
         * Sets the delay before each eval is forwarded; {@link Duration#ZERO} removes it.
         *
         * @throws IllegalArgumentException when {@code latency} is null, negative or longer than a year
         */
        public void setLatency(Duration latency) {
            this.latency = Checks.notNegative("latency", latency, null);
        }

        /**
         * Sets the delay before each subscribe's confirmation is relayed; {@link Duration#ZERO} removes it.
         *
         * @throws IllegalArgumentException when {@code latency} is null, negative or longer than a year
         */
        public void setSubscribeLatency(Duration latency) {
            this.subscribeLatency = Checks.notNegative("subscribeLatency", latency, null);
        }

        /** Disarms reply loss and removes both latencies. */
        public void reset() {
            loseNextReply.set(false);
            latency = Duration.ZERO;
            subscribeLatency = Duration.ZERO;
        }

        /** The delay before each eval is forwarded. */
        public Duration latency() {
            return latency;
        }

        /** The delay before each subscribe's confirmation is relayed. */
        public Duration subscribeLatency() {
            return subscribeLatency;
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
