/**
 * Micrometer meters for Leasehold locks, recorded by a {@code LockEventListener}.
 */
module io.leasehold.lock.micrometer {
    requires transitive io.leasehold.lock;
    // The listener is built from a MeterRegistry.
    requires transitive micrometer.core;
    requires static org.jspecify;

    exports io.leasehold.lock.micrometer;
}
