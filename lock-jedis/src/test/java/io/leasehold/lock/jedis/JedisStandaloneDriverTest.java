package io.leasehold.lock.jedis;

import io.leasehold.lock.testkit.driver.DriverUnderTest;
import io.leasehold.lock.testkit.driver.StandaloneDriverTests;

/** The shared driver tests for Jedis on a standalone server: script cache fallback, pub/sub sharing and resubscribe. */
class JedisStandaloneDriverTest extends StandaloneDriverTests {

    @Override
    protected DriverUnderTest driver() {
        return new JedisDriver();
    }
}
