package io.leasehold.lock.internal.conformance;

/** Part 3 of 3 of the conformance suite on the in-memory backend; see {@link InMemoryConformancePart}. */
class InMemoryConformancePart3Test extends InMemoryConformancePart {

    InMemoryConformancePart3Test() {
        super(2);
    }
}
