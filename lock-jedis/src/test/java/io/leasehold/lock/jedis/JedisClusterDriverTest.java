package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.driver.ClusterDriverTests;
import io.leasehold.lock.testkit.driver.DriverUnderTest;

/** The shared driver tests for Jedis on a three-master cluster: placement, per-slot renewal batches, resubscribe and slot migration. */
class JedisClusterDriverTest extends ClusterDriverTests {

    @Override
    protected DriverUnderTest driver() {
        return new JedisDriver();
    }
}
