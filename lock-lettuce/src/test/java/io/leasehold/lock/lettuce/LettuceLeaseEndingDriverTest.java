package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.driver.DriverUnderTest;
import io.leasehold.lock.testkit.driver.LeaseEndingDriverTests;

/** The shared lease-ending tests for Lettuce: Redis frozen under leases of every length, close() frozen and with 2,000 leases. */
class LettuceLeaseEndingDriverTest extends LeaseEndingDriverTests {

    @Override
    protected DriverUnderTest driver() {
        return new LettuceDriver();
    }
}
