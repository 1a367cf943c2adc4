/**
 * The toolkit for driver authors: the driver-agnostic parts of a {@link io.leasehold.lock.spi.LockBackend}
 * that both Leasehold drivers (Lettuce and Jedis) share and that a driver of your own can reuse, so
 * that a driver holds only its client's glue (how to run a script, how to subscribe, where a key
 * lives).
 *
 * <ul>
 *   <li>{@link io.leasehold.lock.spi.support.ScriptFallback}: {@code EVALSHA}, then {@code EVAL} on {@code NOSCRIPT};</li>
 *   <li>{@link io.leasehold.lock.spi.support.PubSubChannels}: the channel registry with local listeners,
 *       first-subscribe and last-unsubscribe, resubscribe with back-off and {@code onResubscribed};</li>
 *   <li>{@link io.leasehold.lock.spi.support.PubSubKind} and {@link io.leasehold.lock.spi.support.ServerFeatures}:
 *       sharded or plain pub/sub, decided once from {@code INFO server};</li>
 *   <li>{@link io.leasehold.lock.spi.support.DriverFailures}: which failures are transient, by the client's exception types;</li>
 *   <li>{@link io.leasehold.lock.spi.support.Failures}: unwrapping {@code CompletableFuture} failures;</li>
 *   <li>{@link io.leasehold.lock.spi.support.Checks} and {@link io.leasehold.lock.spi.support.Durations}:
 *       argument checks whose messages name the parameter, the rule, the value and the lock, and
 *       durations as people read them ({@code 1.5 s}), shared by the API, the engine and the drivers;</li>
 *   <li>{@link io.leasehold.lock.spi.support.DriverClients}: a client over a backend the driver made,
 *       closing that backend if no client can be made.</li>
 * </ul>
 *
 * <p>A helper that only one driver needs lives in that driver, package-private: Jedis's subscriber
 * thread per node for its blocking pub/sub, Lettuce's connection opened on first use.
 *
 * <p>Like the SPI, these types serve drivers, not applications; they may grow between minor versions.
 */
@NullMarked
package io.leasehold.lock.spi.support;

import org.jspecify.annotations.NullMarked;
