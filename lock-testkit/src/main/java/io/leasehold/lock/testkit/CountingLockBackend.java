package io.leasehold.lock.testkit;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link LockBackend} decorator that counts the calls the engine makes: script evaluations per
 * script name (see {@link io.leasehold.lock.spi.ScriptNames}) and subscriptions. Everything is
 * forwarded to the delegate unchanged; a call is counted when the engine makes it, before the
 * delegate sees it, so a call whose reply never arrives is counted too.
 *
 * <p>Tests use it to prove traffic properties: renewal is batched, waiting does not poll, a
 * reentrant {@code callLocked} costs no Redis call.
 *
 * <p>This class is threadsafe.
 */
public final class CountingLockBackend implements LockBackend {

    private final LockBackend delegate;
    private final Map<String, LongAdder> evals = new ConcurrentHashMap<>();
    private final LongAdder subscribes = new LongAdder();

    public CountingLockBackend(LockBackend delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The backend every call is forwarded to. */
    public LockBackend delegate() {
        return delegate;
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

    /** How many {@link #subscribe} calls were made since creation or {@link #reset()}. */
    public long subscribeCount() {
        return subscribes.sum();
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
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        evals.computeIfAbsent(script.name(), name -> new LongAdder()).increment();
        return delegate.eval(script, keys, args);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        subscribes.increment();
        return delegate.subscribe(channel, listener);
    }

    @Override
    public boolean shardedPubSub() {
        return delegate.shardedPubSub();
    }

    @Override
    public int slot(String key) {
        return delegate.slot(key);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return "CountingLockBackend{" + counts() + ", subscribes=" + subscribeCount() + ", delegate=" + delegate + "}";
    }
}
