package io.leasehold.lock.history.checker;

import java.util.Objects;

/**
 * Two sections of one lock whose times overlapped.
 *
 * @param lock the lock
 * @param earlier the section with the smaller token (the lease granted first)
 * @param later the other one
 * @param kind how it was judged
 * @param from the first microsecond both ran
 * @param to the last
 * @param explanation for {@code DATA_LOSS} and {@code HOLDER_PAUSED} the declared fault that explains
 *     it, for the others {@code null}
 */
public record Overlap(
        String lock, Section earlier, Section later, OverlapKind kind, long from, long to, String explanation) {

    public Overlap {
        Objects.requireNonNull(lock, "lock");
        Objects.requireNonNull(earlier, "earlier");
        Objects.requireNonNull(later, "later");
        Objects.requireNonNull(kind, "kind");
    }

    /** One line of evidence. */
    public String describe() {
        String told = earlier.toldAt() == null ? "never told" : "told at " + earlier.toldAt();
        return kind + " on lock '" + lock + "': " + earlier.describe() + " and " + later.describe() + " overlapped for "
                + (to - from) + " µs; the earlier holder was " + told + ", the later began at " + later.start()
                + (explanation == null ? "" : "; explained by " + explanation);
    }
}
