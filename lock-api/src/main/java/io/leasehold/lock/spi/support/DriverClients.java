package io.leasehold.lock.spi.support;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.LockBackend;

/**
 * For a driver's convenience factory that makes a backend and a client over it in one call (such as
 * {@code LettuceLockBackend.lockClient(redisClient)}): the caller never sees the backend, so if no
 * client can be made (no engine on the path), the backend must be closed here, not left connecting.
 *
 * <p>This class is threadsafe (stateless).
 */
public final class DriverClients {

    private DriverClients() {}

    /**
     * A client with default settings over {@code backend}, which the client then owns (closing the
     * client closes it); if the client cannot be made, {@code backend} is closed and the failure
     * rethrown.
     *
     * @param backend a backend the driver has just made
     * @return the client
     */
    public static LockClient createOwning(LockBackend backend) {
        try {
            return LockClient.create(backend);
        } catch (RuntimeException | Error failure) {
            try {
                backend.close();
            } catch (RuntimeException closeFailure) {
                failure.addSuppressed(closeFailure);
            }
            throw failure;
        }
    }
}
