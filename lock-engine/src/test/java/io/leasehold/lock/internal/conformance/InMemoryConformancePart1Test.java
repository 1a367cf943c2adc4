package io.leasehold.lock.internal.conformance;

/** Part 1 of 3 of the conformance suite on the in-memory backend; see {@link InMemoryConformancePart}. */
class InMemoryConformancePart1Test extends InMemoryConformancePart {

    InMemoryConformancePart1Test() {
        super(0);
    }
}
