/**
 * Leasehold's in-memory backend: {@link io.leasehold.lock.inmemory.InMemoryLockBackend}, a stand-in
 * for Redis with the lock scripts' semantics, a {@link io.leasehold.lock.inmemory.ManualClock} and
 * fault switches, for unit tests. Needs only the API; a {@link io.leasehold.lock.LockClient} over it
 * needs the engine, which every driver brings.
 */
module io.leasehold.lock.inmemory {
    requires transitive io.leasehold.lock;
    requires static org.jspecify;

    exports io.leasehold.lock.inmemory;
}
