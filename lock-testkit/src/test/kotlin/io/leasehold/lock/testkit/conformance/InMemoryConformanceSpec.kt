package io.leasehold.lock.testkit.conformance

import io.kotest.core.spec.style.FunSpec
import io.leasehold.lock.testkit.InMemoryFixture

/** The kotest conformance suite against the in-memory backend. */
class InMemoryConformanceSpec : FunSpec({
    include(lockConformanceTests { InMemoryFixture() })
})
