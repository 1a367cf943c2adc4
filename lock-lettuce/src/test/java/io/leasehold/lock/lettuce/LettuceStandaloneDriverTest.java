package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.driver.DriverUnderTest;
import io.leasehold.lock.testkit.driver.StandaloneDriverTests;

/** The shared driver tests for Lettuce on a standalone server: script cache fallback, pub/sub sharing and resubscribe. */
class LettuceStandaloneDriverTest extends StandaloneDriverTests {

    @Override
    protected DriverUnderTest driver() {
        return new LettuceDriver();
    }
}
