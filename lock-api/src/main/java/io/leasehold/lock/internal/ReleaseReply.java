package io.leasehold.lock.internal;

/**
 * What Redis answered to a lease's release (release.lua, or the 4th entry of handoff.lua's
 * reply), once every send of it has settled.
 *
 * @param code           1: this release deleted the lock (or handed it to its waiter); 0: absent;
 *                       -1: held by another owner (or a key that is not a Leasehold lock)
 * @param inconclusive   the answer cannot prove that the lock was taken from the lease: an earlier send
 *                       of this release had an unknown outcome and may itself have deleted the lock,
 *                       which another owner may then have taken (only a plain release's resend that finds
 *                       another owner; a handoff leaves a marker that tells, see handoff.lua)
 * @param answeredNanos  when the answer arrived, on the engine's ticker: an answer that arrived while the
 *                       lease was still valid proves what Redis held while it was valid
 */
record ReleaseReply(long code, boolean inconclusive, long answeredNanos) {

    static final long DELETED = 1;
    static final long ABSENT = 0;
    static final long OTHER_OWNER = -1;

    boolean deleted() {
        return code == DELETED;
    }
}
