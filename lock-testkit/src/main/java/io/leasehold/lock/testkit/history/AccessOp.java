package io.leasehold.lock.testkit.history;

/** An access to a fenced resource. */
public enum AccessOp {
    READ,
    WRITE
}
