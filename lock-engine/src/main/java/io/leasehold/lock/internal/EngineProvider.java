package io.leasehold.lock.internal;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.ClientSettings;
import io.leasehold.lock.spi.LockEngine;

/**
 * The engine as a {@link LockEngine} service: how {@link LockClient#builder} reaches
 * {@link DefaultLockClient} without the API module depending on this one. Registered in
 * {@code module-info.java} ({@code provides}) and in {@code META-INF/services} for the class path.
 */
public final class EngineProvider implements LockEngine {

    /** For {@link java.util.ServiceLoader}. */
    public EngineProvider() {}

    @Override
    public LockClient newClient(ClientSettings settings) {
        return new DefaultLockClient(settings);
    }
}
