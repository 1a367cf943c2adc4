package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.driver.DriverUnderTest;
import io.leasehold.lock.testkit.driver.SentinelFailoverDriverTests;

/** The shared driver tests for Jedis through a Sentinel failover. */
class JedisSentinelFailoverDriverTest extends SentinelFailoverDriverTests {

    @Override
    protected DriverUnderTest driver() {
        return new JedisDriver();
    }
}
