package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.driver.DriverUnderTest;
import io.leasehold.lock.testkit.driver.SentinelFailoverDriverTests;

/** The shared driver tests for Lettuce through a Sentinel failover. */
class LettuceSentinelFailoverDriverTest extends SentinelFailoverDriverTests {

    @Override
    protected DriverUnderTest driver() {
        return new LettuceDriver();
    }
}
