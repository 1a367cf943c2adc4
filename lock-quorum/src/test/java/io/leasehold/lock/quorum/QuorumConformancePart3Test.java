package io.leasehold.lock.quorum;

/** Part 3 of 3 of the conformance suite on a quorum of 3 in-memory members; see {@link QuorumConformancePart}. */
class QuorumConformancePart3Test extends QuorumConformancePart {

    QuorumConformancePart3Test() {
        super(2);
    }
}
