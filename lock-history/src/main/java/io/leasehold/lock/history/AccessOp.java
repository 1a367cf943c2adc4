package io.leasehold.lock.history;

/** An access to a fenced resource. */
public enum AccessOp {
    READ,
    WRITE
}
