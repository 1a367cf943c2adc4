package io.leasehold.lock.history;

/** What became of an access to a fenced resource. */
public enum AccessOutcome {
    /** The resource took the token (it was at least the highest it had seen) and did the access. */
    ACCEPTED,
    /** The resource had seen a higher token and refused the access; nothing changed. */
    REJECTED,
    /** No reply (timeout, connection lost): the access may or may not have taken effect. */
    UNKNOWN
}
