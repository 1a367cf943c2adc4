package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.driver.DriverUnderTest;
import io.leasehold.lock.testkit.driver.LeaseLossDriverTests;

/** The shared lease-loss attacks for Lettuce: Redis killed, extends to shorter times, releases racing their deadline. */
class LettuceLeaseLossDriverTest extends LeaseLossDriverTests {

    @Override
    protected DriverUnderTest driver() {
        return new LettuceDriver();
    }
}
