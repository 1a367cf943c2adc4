package io.leasehold.lock.testkit.redis;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A backend that also closes the client resources a test's backend factory made for it. A driver's
 * backend closes only what it opened, never the client its user passed in; in a fixture the factory
 * is that user, so it returns e.g.
 * {@code OwningLockBackend.of(LettuceLockBackend.create(client), client::shutdown)}.
 *
 * <p>This class is threadsafe.
 */
public final class OwningLockBackend implements LockBackend {

    private final LockBackend backend;
    private final List<AutoCloseable> resources;
    private final AtomicBoolean closed = new AtomicBoolean();

    private OwningLockBackend(LockBackend backend, List<AutoCloseable> resources) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.resources = List.copyOf(resources);
    }

    /** {@code backend}, whose {@link #close()} then closes {@code resources} in order. */
    public static OwningLockBackend of(LockBackend backend, AutoCloseable... resources) {
        return new OwningLockBackend(backend, List.of(resources));
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        return backend.eval(script, keys, args);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        return backend.subscribe(channel, listener);
    }

    @Override
    public boolean shardedPubSub() {
        return backend.shardedPubSub();
    }

    @Override
    public int slot(String key) {
        return backend.slot(key);
    }

    /** Closes the backend, then each resource; idempotent. The first failure is rethrown after all were tried. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        RuntimeException failure = null;
        try {
            backend.close();
        } catch (RuntimeException e) {
            failure = e;
        }
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new RedisFixtureException("cannot close " + resource, e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
