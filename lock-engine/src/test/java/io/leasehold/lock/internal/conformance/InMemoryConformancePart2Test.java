package io.leasehold.lock.internal.conformance;

/** Part 2 of 3 of the conformance suite on the in-memory backend; see {@link InMemoryConformancePart}. */
class InMemoryConformancePart2Test extends InMemoryConformancePart {

    InMemoryConformancePart2Test() {
        super(1);
    }
}
