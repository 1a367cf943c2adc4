/**
 * Driver tests written once for every Redis driver: extend {@link io.leasehold.lock.testkit.driver.StandaloneDriverTests},
 * {@link io.leasehold.lock.testkit.driver.SentinelFailoverDriverTests} and
 * {@link io.leasehold.lock.testkit.driver.ClusterDriverTests} with a {@link io.leasehold.lock.testkit.driver.DriverUnderTest}
 * to run them for your driver, beside the conformance suite: script cache fallback after
 * {@code SCRIPT FLUSH}, pub/sub sharing and resubscribe after {@code CLIENT KILL TYPE pubsub},
 * Sentinel failover, cluster placement, per-slot renewal batches and slot migration.
 */
package io.leasehold.lock.testkit.driver;
