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
 * <p><b>Write moments.</b> The engine calls {@link #eval(LuaScript, List, List, Runnable)}; this
 * class passes it on to the delegate (whose driver then reports when it writes), unless a subclass
 * overrides the plain {@link #eval(LuaScript, List, List)}: then every call goes through that
 * override (so that a decorator that changes calls sees all of them), and the write moment is taken
 * when the call enters it. A subclass that wants both overrides both.
 *
 * <p>Threadsafe if the delegate is.
 */
public abstract class ForwardingLockBackend implements LockBackend {

    private final LockBackend delegate;
    /** Whether a subclass overrides the plain eval, which must then see every call. */
    private final boolean plainEvalOverridden;

    protected ForwardingLockBackend(LockBackend delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.plainEvalOverridden = overridesPlainEval(getClass());
    }

    private static boolean overridesPlainEval(Class<?> type) {
        try {
            return type.getMethod("eval", LuaScript.class, List.class, List.class)
                            .getDeclaringClass()
                    != ForwardingLockBackend.class;
        } catch (NoSuchMethodException impossible) {
            return true;
        }
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
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args, Runnable writing) {
        if (plainEvalOverridden) {
            return LockBackend.super.eval(script, keys, args, writing); // through the subclass's override
        }
        return delegate.eval(script, keys, args, writing);
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
    public boolean grantsAreComposed() {
        return delegate.grantsAreComposed();
    }

    @Override
    public io.leasehold.lock.spi.Deployment deployment() {
        return delegate.deployment();
    }

    @Override
    public java.util.Optional<java.time.Duration> leaseCap() {
        return delegate.leaseCap();
    }

    @Override
    public boolean confirmsPartially() {
        return delegate.confirmsPartially();
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
