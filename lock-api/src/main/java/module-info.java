/**
 * Leasehold's API: a Redis distributed lock that tells you when you have lost it.
 *
 * <p>Exports the public API ({@link io.leasehold.lock}), the driver SPI ({@link io.leasehold.lock.spi})
 * and the driver authors' helpers ({@link io.leasehold.lock.spi.support}), and holds the Lua scripts.
 * The engine is a module of its own ({@code io.leasehold.lock.engine}, artifact {@code lock-engine}),
 * which exports nothing: {@link io.leasehold.lock.LockClient#builder} finds it as a
 * {@link io.leasehold.lock.spi.LockEngine} service, and every driver artifact brings it.
 *
 * <p>Besides the engine, nothing is required at run time by a Java application. The Kotlin extensions ({@code withLock},
 * the {@code await*} functions, the {@code LockOptions { }} builder) need {@code kotlin.stdlib} and
 * {@code kotlinx.coroutines.core}, which a Kotlin application has and requires itself.
 */
module io.leasehold.lock {
    // JSpecify nullness annotations on the API: for nullness checkers, needed neither to compile
    // against the API nor at run time. Not transitive: a modular application without JSpecify on its
    // module path must compile (lock-jpms-test proves it); one with a checker requires it itself.
    requires static org.jspecify;
    // Only the Kotlin extensions (src/main/kotlin) use these.
    requires static kotlin.stdlib;
    requires static kotlinx.coroutines.core;

    // The API, the SPI and the drivers' helpers. What a test needs to know of the engine is public
    // API (LockClient#diagnostics, LockClient.MAX_NAME_LENGTH).
    exports io.leasehold.lock;
    exports io.leasehold.lock.spi;
    exports io.leasehold.lock.spi.support;

    // LockClient.builder(...).build() asks the engine module for a client.
    uses io.leasehold.lock.spi.LockEngine;
}
