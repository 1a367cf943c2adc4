package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.driver.DriverUnderTest;
import io.leasehold.lock.testkit.driver.LeaseLossDriverTests;

/** The shared lease-loss attacks for Jedis: Redis killed, extends to shorter times, releases racing their deadline. */
class JedisLeaseLossDriverTest extends LeaseLossDriverTests {

    @Override
    protected DriverUnderTest driver() {
        return new JedisDriver();
    }
}
