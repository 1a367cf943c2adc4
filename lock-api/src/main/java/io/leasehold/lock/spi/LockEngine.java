package io.leasehold.lock.spi;

import io.leasehold.lock.LockClient;

/**
 * The engine behind {@link LockClient#builder}: acquisition and waiting, leases, renewal and loss
 * signalling, over any {@link LockBackend}. The API finds it with {@link java.util.ServiceLoader}:
 * the {@code lock-engine} artifact provides it, and every driver artifact brings that along, so an
 * application never names it.
 *
 * <p>Only Leasehold's own engine is meant to implement this; it is public so that the API module
 * can reach the engine module without depending on it (the API stays a pure contract). Not for
 * applications; it, and {@link ClientSettings}, may change between minor versions, so keep
 * {@code lock-api} and {@code lock-engine} at one version (import {@code lock-bom}).
 */
public interface LockEngine {

    /**
     * A new client with these settings (already validated by the builder). Starts the client's
     * threads; the caller owns the client and closes it.
     */
    LockClient newClient(ClientSettings settings);
}
