package io.leasehold.lock.history.checker;

import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.SectionEnding;
import java.util.ArrayList;
import java.util.List;

/** A section while the index gathers its records; {@link #toSection} freezes it. */
final class TrackedSection {

    final SectionKey key;
    final long start;
    Long end;
    SectionEnding ending;
    Long acquireStart;
    Long earliestLoss;
    final List<ResourceAccess> accesses = new ArrayList<>();

    TrackedSection(SectionKey key, long start) {
        this.key = key;
        this.start = start;
    }

    /**
     * @param openEnd the end to assume when the history has no end record for the section
     */
    Section toSection(long openEnd) {
        boolean open = end == null;
        long effectiveEnd = open ? Math.max(start, openEnd) : end;
        Long toldAt = earliestLoss;
        if (toldAt == null && (ending == SectionEnding.NOT_HELD || ending == SectionEnding.LOST)) {
            toldAt = end;
        }
        return new Section(
                key.process(),
                key.lock(),
                key.token(),
                acquireStart == null ? start : acquireStart,
                start,
                effectiveEnd,
                open,
                ending,
                toldAt);
    }
}
