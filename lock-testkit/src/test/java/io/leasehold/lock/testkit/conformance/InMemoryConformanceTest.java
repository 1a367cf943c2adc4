package io.leasehold.lock.testkit.conformance;

import io.leasehold.lock.testkit.InMemoryFixture;
import io.leasehold.lock.testkit.LockBackendFixture;

/** The JUnit 5 conformance suite against the in-memory backend. */
class InMemoryConformanceTest extends LockConformanceSuite {

    @Override
    protected LockBackendFixture createFixture() {
        return new InMemoryFixture();
    }
}
