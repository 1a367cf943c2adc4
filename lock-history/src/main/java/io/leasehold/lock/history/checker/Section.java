package io.leasehold.lock.history.checker;

import io.leasehold.lock.history.SectionEnding;

/**
 * A critical section as the checker reconstructed it from the history.
 *
 * @param process the holder
 * @param lock the lock name
 * @param token the lease's fencing token
 * @param acquireStart when the acquire that got the lease was called (its {@code acquire} record), or
 *     {@code start} when there is none
 * @param start when the section began
 * @param end when it ended; for a section with no end record: when its process was killed (a declared
 *     {@code KILL}), else the end of the whole run, so that an open section is never shorter than it
 *     may have been
 * @param open true when the history has no end record for it
 * @param ending how it ended, or {@code null} when open
 * @param toldAt when its holder was told the lease was lost: the earliest loss signal, else the end of
 *     a section that ended {@code NOT_HELD} or {@code LOST}; {@code null} when never told
 */
public record Section(
        String process,
        String lock,
        long token,
        long acquireStart,
        long start,
        long end,
        boolean open,
        SectionEnding ending,
        Long toldAt) {

    /** E.g. {@code w1 token 17 [100..300]} (times in microseconds). */
    public String describe() {
        return process + " token " + token + " [" + start + ".." + end + (open ? " (open)" : "") + "]";
    }
}
