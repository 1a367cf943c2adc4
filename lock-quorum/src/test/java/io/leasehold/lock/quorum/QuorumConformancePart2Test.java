package io.leasehold.lock.quorum;

/** Part 2 of 3 of the conformance suite on a quorum of 3 in-memory members; see {@link QuorumConformancePart}. */
class QuorumConformancePart2Test extends QuorumConformancePart {

    QuorumConformancePart2Test() {
        super(1);
    }
}
