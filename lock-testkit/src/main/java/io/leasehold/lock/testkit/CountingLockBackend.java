package io.leasehold.lock.testkit;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link LockBackend} decorator that counts the calls the engine makes: script evaluations per
 * script name (see {@link io.leasehold.lock.spi.ScriptNames}), subscriptions and unsubscriptions. Everything is
 * forwarded to the delegate unchanged; a call is counted when the engine makes it, before the
 * delegate sees it, so a call whose reply never arrives is counted too.
 *
 * <p>Tests use it to prove traffic properties: renewal is batched, waiting does not poll, a
 * reentrant {@code callLocked} costs no Redis call.
 *
 * <p>This class is threadsafe.
 */
public final class CountingLockBackend extends ForwardingLockBackend {

    private final Map<String, LongAdder> evals = new ConcurrentHashMap<>();
    private final LongAdder subscribes = new LongAdder();
    private final LongAdder publishModeQueries = new LongAdder();
    private final LongAdder unsubscribes = new LongAdder();
    private final LongAdder active = new LongAdder();

    public CountingLockBackend(LockBackend delegate) {
        super(delegate);
    }

    /** How many times the script named {@code scriptName} was evaluated since creation or {@link #reset()}. */
    public long count(String scriptName) {
        LongAdder adder = evals.get(scriptName);
        return adder == null ? 0 : adder.sum();
    }

    /** How many scripts of any name were evaluated since creation or {@link #reset()}. */
    public long total() {
        return evals.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /**
     * How many times the engine asked which publish command to use ({@link #shardedPubSub()}): it
     * asks before its first script call that names it, and again after a failure, so with an
     * unreachable backend an attempt may show here rather than in {@link #count}.
     */
    public long publishModeQueries() {
        return publishModeQueries.sum();
    }

    @Override
    public CompletableFuture<Boolean> shardedPubSub() {
        publishModeQueries.increment();
        return super.shardedPubSub();
    }

    /** How many {@link #subscribe} calls were made since creation or {@link #reset()}. */
    public long subscribeCount() {
        return subscribes.sum();
    }

    /**
     * How many subscriptions made through this backend were ended with
     * {@link Subscription#unsubscribe()} since creation or {@link #reset()} (each counted once,
     * however often it is unsubscribed).
     */
    public long unsubscribeCount() {
        return unsubscribes.sum();
    }

    /**
     * Subscriptions made through this backend that became active and were not unsubscribed yet
     * (not affected by {@link #reset()}).
     */
    public long activeSubscriptions() {
        return active.sum();
    }

    /** A snapshot of the evaluation counts by script name (for failure messages). */
    public Map<String, Long> counts() {
        Map<String, Long> snapshot = new TreeMap<>();
        evals.forEach((name, adder) -> snapshot.put(name, adder.sum()));
        return snapshot;
    }

    /** Sets every count back to zero. */
    public void reset() {
        evals.values().forEach(LongAdder::reset);
        subscribes.reset();
        publishModeQueries.reset();
        unsubscribes.reset();
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        evals.computeIfAbsent(script.name(), name -> new LongAdder()).increment();
        return super.eval(script, keys, args);
    }

    /** Counts, and passes the write moment on to the delegate's driver. */
    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args, Runnable writing) {
        evals.computeIfAbsent(script.name(), name -> new LongAdder()).increment();
        return delegate().eval(script, keys, args, writing);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        subscribes.increment();
        return super.subscribe(channel, listener).thenApply(subscription -> {
            active.increment();
            return new CountedSubscription(subscription);
        });
    }

    /** Counts the first {@link #unsubscribe()} of a subscription. */
    private final class CountedSubscription implements Subscription {

        private final Subscription delegate;
        private final AtomicBoolean ended = new AtomicBoolean();

        CountedSubscription(Subscription delegate) {
            this.delegate = delegate;
        }

        @Override
        public String channel() {
            return delegate.channel();
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            if (ended.compareAndSet(false, true)) {
                unsubscribes.increment();
                active.decrement();
            }
            return delegate.unsubscribe();
        }
    }

    @Override
    public String toString() {
        return "CountingLockBackend{" + counts() + ", subscribes=" + subscribeCount() + ", active subscriptions="
                + activeSubscriptions() + ", delegate=" + delegate() + "}";
    }
}
