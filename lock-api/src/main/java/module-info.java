/**
 * Leasehold's API and engine: a Redis distributed lock that tells you when you have lost it.
 *
 * <p>Exports the public API ({@link io.leasehold.lock}), the driver SPI ({@link io.leasehold.lock.spi})
 * and the driver authors' helpers ({@link io.leasehold.lock.spi.support}). The engine,
 * {@code io.leasehold.lock.internal}, is not exported: it may change without notice, and no other
 * module can reach it.
 *
 * <p>Nothing is required at run time by a Java application. The Kotlin extensions ({@code withLock},
 * the {@code await*} functions, the {@code LockOptions { }} builder) need {@code kotlin.stdlib} and
 * {@code kotlinx.coroutines.core}, which a Kotlin application has and requires itself.
 */
module io.leasehold.lock {
    // JSpecify nullness annotations on the API: needed to compile against it with a nullness
    // checker, never at run time.
    requires static transitive org.jspecify;
    // Only the Kotlin extensions (src/main/kotlin) use these.
    requires static kotlin.stdlib;
    requires static kotlinx.coroutines.core;

    exports io.leasehold.lock;
    exports io.leasehold.lock.spi;
    exports io.leasehold.lock.spi.support;
    // The engine, to the testkit alone: its load tests read the engine's per-name state
    // (EngineFootprint) to prove nothing is left behind. No other module can read it.
    exports io.leasehold.lock.internal to
            io.leasehold.lock.testkit;
}
