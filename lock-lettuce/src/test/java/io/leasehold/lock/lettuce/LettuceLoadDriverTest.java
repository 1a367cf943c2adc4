package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.driver.DriverUnderTest;
import io.leasehold.lock.testkit.driver.LoadDriverTests;

/** The shared load tests for Lettuce: 10,000 leases renewed, 1,000 waiters on 4 nodes, 100,000 names leaving nothing behind. */
class LettuceLoadDriverTest extends LoadDriverTests {

    @Override
    protected DriverUnderTest driver() {
        return new LettuceDriver();
    }
}
