package io.leasehold.lock.quorum;

/** Part 1 of 3 of the conformance suite on a quorum of 3 in-memory members; see {@link QuorumConformancePart}. */
class QuorumConformancePart1Test extends QuorumConformancePart {

    QuorumConformancePart1Test() {
        super(0);
    }
}
