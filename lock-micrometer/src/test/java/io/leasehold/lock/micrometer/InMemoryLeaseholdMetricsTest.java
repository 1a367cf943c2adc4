package io.leasehold.lock.micrometer;

import io.leasehold.lock.testkit.InMemoryFixture;
import io.leasehold.lock.testkit.LockBackendFixture;

/** The meters on the in-memory backend. */
class InMemoryLeaseholdMetricsTest extends LeaseholdMetricsTestBase {

    @Override
    protected LockBackendFixture createFixture() {
        return new InMemoryFixture();
    }
}
