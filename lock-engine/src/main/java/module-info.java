/**
 * Leasehold's engine: acquisition and waiting, leases, batched renewal and loss signalling, behind the
 * API of {@code io.leasehold.lock}.
 *
 * <p>Exports nothing: no application, driver or test can reach the engine, which may change without
 * notice. {@link io.leasehold.lock.LockClient#builder} finds it as a
 * {@link io.leasehold.lock.spi.LockEngine} service; every driver artifact depends on it.
 */
module io.leasehold.lock.engine {
    requires io.leasehold.lock;
    requires static org.jspecify;

    provides io.leasehold.lock.spi.LockEngine with
            io.leasehold.lock.internal.EngineProvider;
}
