package io.leasehold.lock.history.checker;

import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.ResourceUpdate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The resource never accepted a stale token: no accepted access has a lower token than an access the
 * resource had accepted before it. "Before" is the resource's own numbering ({@code seq}) wherever it
 * gave one — the workers' accepted accesses and the resource's log of accepted writes together — and
 * real time otherwise (the other access had returned before this one was sent), which catches a
 * resource that does not number its accesses, though only in the unambiguous cases.
 */
final class StaleAccessCheck {

    private StaleAccessCheck() {}

    /** An accepted access in a form both sources share. */
    private record Accepted(String what, long token, Long seq, long start, long end) {}

    static void run(HistoryIndex index, List<Violation> violations) {
        Set<String> resources = new HashSet<>(index.accessesByResource.keySet());
        resources.addAll(index.updatesByResource.keySet());
        for (String resource : resources) {
            List<Accepted> accepted = new ArrayList<>();
            Set<Long> seqs = new HashSet<>();
            for (ResourceAccess access : index.accessesByResource.getOrDefault(resource, List.of())) {
                if (access.outcome() == AccessOutcome.ACCEPTED) {
                    accepted.add(new Accepted(
                            HistoryIndex.describe(access), access.token(), access.seq(), access.start(), access.end()));
                    if (access.seq() != null) {
                        seqs.add(access.seq());
                    }
                }
            }
            for (ResourceUpdate update : index.updatesByResource.getOrDefault(resource, List.of())) {
                if (seqs.add(update.seq())) {
                    // A write in the resource's log that no worker recorded as accepted: judged by its number only.
                    accepted.add(new Accepted(
                            "logged write of '" + resource + "' with token " + update.token() + " (seq " + update.seq()
                                    + ")",
                            update.token(),
                            update.seq(),
                            Long.MIN_VALUE,
                            Long.MIN_VALUE));
                }
            }
            Set<Accepted> reported = new HashSet<>();
            bySeq(resource, accepted, reported, violations);
            byRealTime(resource, accepted, reported, violations);
        }
    }

    private static void bySeq(
            String resource, List<Accepted> accepted, Set<Accepted> reported, List<Violation> violations) {
        List<Accepted> numbered = new ArrayList<>();
        for (Accepted access : accepted) {
            if (access.seq() != null) {
                numbered.add(access);
            }
        }
        numbered.sort(Comparator.comparingLong(Accepted::seq));
        Accepted highest = null;
        for (Accepted access : numbered) {
            if (highest != null && access.token() < highest.token()) {
                reported.add(access);
                violations.add(new Violation(
                        ViolationKind.STALE_ACCEPTED,
                        "resource '" + resource + "' accepted the " + access.what() + " after it had accepted the "
                                + highest.what() + " (by its own order)"));
            }
            if (highest == null || access.token() > highest.token()) {
                highest = access;
            }
        }
    }

    private static void byRealTime(
            String resource, List<Accepted> accepted, Set<Accepted> reported, List<Violation> violations) {
        List<Accepted> timed = new ArrayList<>();
        for (Accepted access : accepted) {
            if (access.start() != Long.MIN_VALUE) {
                timed.add(access);
            }
        }
        timed.sort(Comparator.comparingLong(Accepted::start));
        PriorityQueue<Accepted> notYetEnded = new PriorityQueue<>(Comparator.comparingLong(Accepted::end));
        Accepted highestEnded = null;
        for (Accepted access : timed) {
            while (!notYetEnded.isEmpty() && notYetEnded.peek().end() < access.start()) {
                Accepted ended = notYetEnded.poll();
                if (highestEnded == null || ended.token() > highestEnded.token()) {
                    highestEnded = ended;
                }
            }
            if (highestEnded != null && access.token() < highestEnded.token() && reported.add(access)) {
                violations.add(new Violation(
                        ViolationKind.STALE_ACCEPTED,
                        "resource '" + resource + "' accepted the "
                                + access.what() + " although the " + highestEnded.what()
                                + " had been accepted and answered before it was sent"));
            }
            notYetEnded.add(access);
        }
    }
}
