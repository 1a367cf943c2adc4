package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.driver.ClusterDriverTests;
import io.leasehold.lock.testkit.driver.DriverUnderTest;

/** The shared driver tests for Lettuce on a three-master cluster: placement, per-slot renewal batches, resubscribe and slot migration. */
class LettuceClusterDriverTest extends ClusterDriverTests {

    @Override
    protected DriverUnderTest driver() {
        return new LettuceDriver();
    }
}
