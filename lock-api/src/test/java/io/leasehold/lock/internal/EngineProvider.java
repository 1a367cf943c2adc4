package io.leasehold.lock.internal;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.ClientSettings;
import io.leasehold.lock.spi.LockEngine;

/**
 * A test double with the name of lock-engine's provider (lock-engine is not on lock-api's test path),
 * so that {@code EngineLookupTest} can see that the lookup prefers Leasehold's own engine to a
 * provider listed before it.
 */
public final class EngineProvider implements LockEngine {

    @Override
    public LockClient newClient(ClientSettings settings) {
        throw new IllegalStateException("made by Leasehold's engine");
    }
}
