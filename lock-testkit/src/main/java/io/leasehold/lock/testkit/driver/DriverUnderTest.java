package io.leasehold.lock.testkit.driver;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.redis.RedisTopology;
import java.util.function.LongSupplier;

/**
 * A Redis driver as the shared driver tests ({@link StandaloneDriverTests},
 * {@link SentinelFailoverDriverTests}, {@link ClusterDriverTests}) see it: how to open a backend over
 * a new client of the driver for a running topology.
 */
public interface DriverUnderTest {

    /**
     * A new backend over a new client for {@code topology}, as an application would build it; closing
     * the backend must close that client too (see {@link io.leasehold.lock.testkit.redis.OwningLockBackend}).
     */
    OpenedBackend open(RedisTopology topology);

    /**
     * A backend and its diagnostics.
     *
     * @param backend         the backend; closing it closes its client
     * @param scriptFallbacks how many calls fell back from {@code EVALSHA} to {@code EVAL} so far
     */
    record OpenedBackend(LockBackend backend, LongSupplier scriptFallbacks) {}
}
