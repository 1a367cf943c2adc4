package io.leasehold.lock.testkit;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link LockBackend} that forwards every call to a delegate: the base of the testkit's
 * decorators (counting, fault injection, resource ownership), which override only what they change.
 *
 * <p>Threadsafe if the delegate is.
 */
public abstract class ForwardingLockBackend implements LockBackend {

    private final LockBackend delegate;

    protected ForwardingLockBackend(LockBackend delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The decorated backend. */
    public LockBackend delegate() {
        return delegate;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        return delegate.eval(script, keys, args);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        return delegate.subscribe(channel, listener);
    }

    @Override
    public CompletableFuture<Boolean> shardedPubSub() {
        return delegate.shardedPubSub();
    }

    @Override
    public boolean isTransient(Throwable failure) {
        return delegate.isTransient(failure);
    }

    @Override
    public int slot(String key) {
        return delegate.slot(key);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
