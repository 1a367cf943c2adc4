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

    /**
     * The outcome of a release from the answer of one of its sends. After an earlier send of unknown
     * outcome (its reply lost to a reset or a timeout), absent proves nothing: that send may itself
     * have deleted the lock (a handoff's may have yielded it, or granted it to a waiter that cleaned
     * it up since), and the only actor expected to delete our lock is our own release, so absent
     * counts as deleted. Another owner after such a send is inconclusive for a plain release (the
     * earlier send may have deleted ours, and someone taken it since); a handoff says so itself,
     * through its yield marker (see handoff.lua), so for it another owner stays a loss.
     *
     * @param code               what the send answered (1, 0, -1)
     * @param afterUnknown       whether an earlier send of this release had an unknown outcome
     * @param markerTellsAYield  whether the script tells an earlier yield apart (a handoff)
     */
    static ReleaseReply answered(long code, boolean afterUnknown, boolean markerTellsAYield, long answeredNanos) {
        if (!afterUnknown) {
            return new ReleaseReply(code, false, answeredNanos);
        }
        return new ReleaseReply(
                code == ABSENT ? DELETED : code, code == OTHER_OWNER && !markerTellsAYield, answeredNanos);
    }

    boolean deleted() {
        return code == DELETED;
    }
}
