package io.leasehold.lock.internal;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import java.time.Duration;
import java.util.List;

/** Placeholder until the engine lands (commit "Engine: ..."). */
public final class DefaultLockClient implements LockClient {

    public DefaultLockClient(LockBackend backend, LockOptions defaultOptions, String keyPrefix, Duration commandTimeout,
            Duration closeTimeout, List<LockEventListener> listeners) {
        throw new UnsupportedOperationException("engine not yet implemented");
    }

    @Override
    public DistributedLock lock(String name) {
        throw new UnsupportedOperationException();
    }

    @Override
    public DistributedLock lock(String name, LockOptions options) {
        throw new UnsupportedOperationException();
    }

    @Override
    public LockOptions defaultOptions() {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean isClosed() {
        return false;
    }

    @Override
    public void close() {
    }
}
