package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.driver.DriverUnderTest;
import io.leasehold.lock.testkit.driver.LeaseEndingDriverTests;

/** The shared lease-ending tests for Jedis: Redis frozen under leases of every length, close() frozen and with 2,000 leases. */
class JedisLeaseEndingDriverTest extends LeaseEndingDriverTests {

    @Override
    protected DriverUnderTest driver() {
        return new JedisDriver();
    }
}
