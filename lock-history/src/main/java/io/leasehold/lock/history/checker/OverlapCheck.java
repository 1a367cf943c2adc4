package io.leasehold.lock.history.checker;

import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.FaultWindow;
import io.leasehold.lock.history.ResourceAccess;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds every pair of sections of one lock whose times overlapped and judges it. The earlier section
 * is the one with the smaller token (the lease granted first); the pair is
 * <ul>
 *   <li>{@link OverlapKind#TOLD_BEFORE} when its holder was told of the loss at or before the later
 *       section's start;</li>
 *   <li>otherwise {@link OverlapKind#DATA_LOSS} when a declared Redis data loss touches the span from
 *       the earlier acquire's call to the later section's start (the lock could have been lost in it),
 *       or {@link OverlapKind#HOLDER_PAUSED} when the earlier holder's process was declared paused
 *       between its section's start and the later one's: both allowed only if the stale holder was
 *       told afterwards ({@link ViolationKind#HOLDER_NEVER_TOLD}) and the resource rejected every
 *       access of its made after the new holder's first access
 *       ({@link ViolationKind#STALE_HOLDER_ACCESS_ACCEPTED});</li>
 *   <li>otherwise {@link OverlapKind#UNTOLD}: a violation.</li>
 * </ul>
 * Every overlap is returned, allowed or not. Sections are swept in start order, keeping only those
 * still running, so the cost grows with the overlaps, not with the square of the sections.
 */
final class OverlapCheck {

    private OverlapCheck() {}

    static List<Overlap> run(HistoryIndex index, List<TimeWindow> extraDataLoss, List<Violation> violations) {
        List<Overlap> overlaps = new ArrayList<>();
        index.sectionsByLock.forEach((lock, sections) -> {
            List<Section> running = new ArrayList<>();
            for (Section section : sections) {
                running.removeIf(other -> other.end() <= section.start());
                for (Section other : running) {
                    overlaps.add(judge(index, extraDataLoss, lock, other, section, violations));
                }
                running.add(section);
            }
        });
        return overlaps;
    }

    private static Overlap judge(
            HistoryIndex index,
            List<TimeWindow> extraDataLoss,
            String lock,
            Section a,
            Section b,
            List<Violation> violations) {
        Section earlier = a.token() <= b.token() ? a : b;
        Section later = earlier == a ? b : a;
        long from = Math.max(a.start(), b.start());
        long to = Math.min(a.end(), b.end());
        if (earlier.toldAt() != null && earlier.toldAt() <= later.start()) {
            return new Overlap(lock, earlier, later, OverlapKind.TOLD_BEFORE, from, to, null);
        }
        String dataLoss = dataLossBetween(index, extraDataLoss, earlier.acquireStart(), later.start());
        String pause = dataLoss != null ? null : pauseOf(index, earlier, later.start());
        if (dataLoss == null && pause == null) {
            Overlap overlap = new Overlap(lock, earlier, later, OverlapKind.UNTOLD, from, to, null);
            violations.add(new Violation(ViolationKind.UNTOLD_OVERLAP, overlap.describe()));
            return overlap;
        }
        OverlapKind kind = dataLoss != null ? OverlapKind.DATA_LOSS : OverlapKind.HOLDER_PAUSED;
        Overlap overlap = new Overlap(lock, earlier, later, kind, from, to, dataLoss != null ? dataLoss : pause);
        if (earlier.toldAt() == null) {
            violations.add(new Violation(
                    ViolationKind.HOLDER_NEVER_TOLD,
                    overlap.describe() + "; the stale holder must be told it lost the lease, if only afterwards"));
        }
        staleHolderAccesses(index, overlap, violations);
        return overlap;
    }

    /** The earlier holder's accepted accesses after the later holder's first access: each one is a violation. */
    private static void staleHolderAccesses(HistoryIndex index, Overlap overlap, List<Violation> violations) {
        List<ResourceAccess> laterAccesses = index.accessesOf(overlap.later());
        if (laterAccesses.isEmpty()) {
            return;
        }
        for (ResourceAccess access : index.accessesOf(overlap.earlier())) {
            if (access.outcome() != AccessOutcome.ACCEPTED) {
                continue;
            }
            for (ResourceAccess first : firstOnEachResource(laterAccesses, access.resource())) {
                if (after(access, first)) {
                    violations.add(new Violation(
                            ViolationKind.STALE_HOLDER_ACCESS_ACCEPTED,
                            overlap.kind() + " overlap on lock '"
                                    + overlap.lock() + "': the " + HistoryIndex.describe(access)
                                    + " came after the new holder's "
                                    + HistoryIndex.describe(first) + ", yet was accepted"));
                }
            }
        }
    }

    /** The new holder's first access to {@code resource}: by the resource's numbering when it has one, else by start. */
    private static List<ResourceAccess> firstOnEachResource(List<ResourceAccess> accesses, String resource) {
        ResourceAccess first = null;
        for (ResourceAccess access : accesses) {
            if (!access.resource().equals(resource)) {
                continue;
            }
            if (first == null || earlier(access, first)) {
                first = access;
            }
        }
        return first == null ? List.of() : List.of(first);
    }

    private static boolean earlier(ResourceAccess x, ResourceAccess y) {
        if (x.seq() != null && y.seq() != null) {
            return x.seq() < y.seq();
        }
        return x.start() < y.start();
    }

    /**
     * Whether {@code x} certainly reached the resource after {@code y}: by the resource's numbering when
     * both have one, else only when {@code x} was sent after {@code y} was answered.
     */
    private static boolean after(ResourceAccess x, ResourceAccess y) {
        if (x.seq() != null && y.seq() != null) {
            return x.seq() > y.seq();
        }
        return x.start() > y.end();
    }

    private static String dataLossBetween(HistoryIndex index, List<TimeWindow> extra, long from, long to) {
        for (FaultWindow fault : index.faults) {
            if (fault.effect() == FaultEffect.DATA_LOSS && fault.intersects(from, to)) {
                return "the declared data loss '" + fault.kind() + "' [" + fault.start() + ".." + fault.end() + "]";
            }
        }
        for (TimeWindow window : extra) {
            if (window.intersects(from, to)) {
                return "the data loss window " + window + " given to the checker";
            }
        }
        return null;
    }

    private static String pauseOf(HistoryIndex index, Section earlier, long laterStart) {
        for (FaultWindow fault : index.faults) {
            if (fault.effect() == FaultEffect.PAUSE
                    && earlier.process().equals(fault.target())
                    && fault.intersects(earlier.start(), laterStart)) {
                return "the declared pause '" + fault.kind() + "' of " + fault.target() + " [" + fault.start() + ".."
                        + fault.end() + "]";
            }
        }
        return null;
    }
}
