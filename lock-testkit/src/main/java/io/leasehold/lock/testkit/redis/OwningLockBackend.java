package io.leasehold.lock.testkit.redis;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A backend that also closes the client resources a test's backend factory made for it. A driver's
 * backend closes only what it opened, never the client its user passed in; in a fixture the factory
 * is that user, so it returns e.g.
 * {@code OwningLockBackend.of(LettuceLockBackend.create(client), client::shutdown)}.
 *
 * <p>This class is threadsafe.
 */
public final class OwningLockBackend extends ForwardingLockBackend {

    private final List<AutoCloseable> resources;
    private final AtomicBoolean closed = new AtomicBoolean();

    private OwningLockBackend(LockBackend backend, List<AutoCloseable> resources) {
        super(backend);
        this.resources = List.copyOf(resources);
    }

    /** {@code backend}, whose {@link #close()} then closes {@code resources} in order. */
    public static OwningLockBackend of(LockBackend backend, AutoCloseable... resources) {
        return new OwningLockBackend(backend, List.of(resources));
    }

    /** Closes the backend, then each resource; idempotent. The first failure is rethrown after all were tried. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        RuntimeException failure = null;
        try {
            super.close();
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
