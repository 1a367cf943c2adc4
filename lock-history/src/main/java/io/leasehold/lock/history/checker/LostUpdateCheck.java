package io.leasehold.lock.history.checker;

import io.leasehold.lock.history.AccessOp;
import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.ResourceState;
import io.leasehold.lock.history.ResourceUpdate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * No lost update, for a counter that every section increments by a read-modify-write (write the
 * value read plus one), starting from 0:
 * <ol>
 *   <li>the counter equals the number of accepted writes in the resource's log, and its last value;</li>
 *   <li>each logged write replaced the value the write before it wrote, and wrote one more: a write
 *       of {@code v} over {@code v} was built on a stale read, so an increment was lost;</li>
 *   <li>every write a worker saw accepted is in the log with its token and value (an acknowledged
 *       write the resource lost is a lost update too), and every logged write was recorded by a
 *       worker as accepted or unknown (else the history misses part of the run).</li>
 * </ol>
 * A resource with accesses but no {@code resource-state} record cannot be checked: that is said in
 * the report's notes.
 */
final class LostUpdateCheck {

    private LostUpdateCheck() {}

    static void run(HistoryIndex index, List<Violation> violations, List<String> notes) {
        Set<String> resources = new TreeSet<>(index.accessesByResource.keySet());
        resources.addAll(index.resourceStates.keySet());
        resources.addAll(index.updatesByResource.keySet());
        for (String resource : resources) {
            ResourceState state = index.resourceStates.get(resource);
            if (state == null) {
                notes.add("resource '" + resource + "': NOT CHECKED for lost updates: the history has no resource-state"
                        + " record for it (write FencedResource.snapshot().toHistory(...) after the run)");
                continue;
            }
            List<ResourceUpdate> log =
                    distinctBySeq(resource, index.updatesByResource.getOrDefault(resource, List.of()), violations);
            counterAgainstLog(resource, state, log, violations);
            chain(resource, log, violations);
            List<ResourceAccess> accesses = index.accessesByResource.getOrDefault(resource, List.of());
            if (accesses.isEmpty()) {
                notes.add("resource '" + resource
                        + "': no access was recorded, so its log was not compared with the workers'");
            } else {
                workersAgainstLog(index, resource, accesses, log, violations, notes);
            }
        }
    }

    private static List<ResourceUpdate> distinctBySeq(
            String resource, List<ResourceUpdate> updates, List<Violation> violations) {
        Map<Long, ResourceUpdate> bySeq = new HashMap<>();
        for (ResourceUpdate update : updates) {
            ResourceUpdate known = bySeq.putIfAbsent(update.seq(), update);
            if (known != null && !sameWrite(known, update)) {
                violations.add(new Violation(
                        ViolationKind.MALFORMED_HISTORY,
                        "resource '" + resource + "': two different logged writes carry seq " + update.seq() + ": "
                                + known + " and " + update));
            }
        }
        List<ResourceUpdate> log = new ArrayList<>(bySeq.values());
        log.sort(Comparator.comparingLong(ResourceUpdate::seq));
        return log;
    }

    private static boolean sameWrite(ResourceUpdate a, ResourceUpdate b) {
        return a.token() == b.token() && a.previous() == b.previous() && a.value() == b.value();
    }

    private static void counterAgainstLog(
            String resource, ResourceState state, List<ResourceUpdate> log, List<Violation> violations) {
        if (state.value() != log.size()) {
            long lost = log.size() - state.value();
            violations.add(new Violation(
                    ViolationKind.LOST_UPDATE,
                    "resource '" + resource + "' counts " + state.value()
                            + " but its log holds " + log.size() + " accepted increments"
                            + (lost > 0 ? ": " + lost + " update(s) lost" : "")));
        }
        if (!log.isEmpty() && log.get(log.size() - 1).value() != state.value()) {
            ResourceUpdate last = log.get(log.size() - 1);
            violations.add(new Violation(
                    ViolationKind.LOST_UPDATE,
                    "resource '" + resource + "' holds " + state.value()
                            + " but the last write in its log (seq " + last.seq() + ", token " + last.token()
                            + ") wrote "
                            + last.value()));
        }
    }

    private static void chain(String resource, List<ResourceUpdate> log, List<Violation> violations) {
        long before = 0;
        for (ResourceUpdate update : log) {
            if (update.previous() != before) {
                violations.add(new Violation(
                        ViolationKind.LOST_UPDATE,
                        "resource '" + resource + "': the write of seq "
                                + update.seq() + " (token " + update.token() + ") replaced " + update.previous()
                                + ", but the write before it had left " + before + ": the log misses a write"));
            }
            if (update.value() != update.previous() + 1) {
                violations.add(new Violation(
                        ViolationKind.LOST_UPDATE,
                        "resource '" + resource + "': the write of seq "
                                + update.seq() + " (token " + update.token() + ") wrote " + update.value() + " over "
                                + update.previous()
                                + ": not an increment of the value it replaced, so it was built on a stale"
                                + " read and an update was lost"));
            }
            before = update.value();
        }
    }

    private static void workersAgainstLog(
            HistoryIndex index,
            String resource,
            List<ResourceAccess> accesses,
            List<ResourceUpdate> log,
            List<Violation> violations,
            List<String> notes) {
        Map<Long, ResourceUpdate> logBySeq = new HashMap<>();
        List<ResourceUpdate> unmatched = new ArrayList<>(log);
        log.forEach(update -> logBySeq.put(update.seq(), update));
        for (ResourceAccess access : accesses) {
            if (access.op() != AccessOp.WRITE || access.outcome() != AccessOutcome.ACCEPTED) {
                continue;
            }
            ResourceUpdate logged =
                    access.seq() != null ? logBySeq.get(access.seq()) : findByTokenAndValue(unmatched, access);
            if (logged == null
                    || logged.token() != access.token()
                    || (access.value() != null && logged.value() != access.value())) {
                violations.add(new Violation(
                        ViolationKind.LOST_UPDATE,
                        "resource '" + resource + "' acknowledged the "
                                + HistoryIndex.describe(access) + " (value " + access.value() + ") but its log "
                                + (logged == null ? "does not have it" : "has " + logged + " there instead")));
            }
            unmatched.remove(logged);
        }
        for (ResourceUpdate update : new ArrayList<>(unmatched)) {
            if (writtenWithUnknownOutcome(accesses, update)) {
                continue;
            }
            List<String> holders = index.holdersOf(update.token());
            boolean writerKilled = !holders.isEmpty() && holders.stream().allMatch(index::killed);
            String message = "resource '" + resource + "' logged the write of seq " + update.seq() + " (token "
                    + update.token() + ", " + update.previous() + " -> " + update.value() + ") that no worker recorded";
            if (writerKilled) {
                notes.add(message + "; its writer " + holders + " was killed, which explains it");
            } else {
                violations.add(new Violation(ViolationKind.UNLOGGED_UPDATE, message));
            }
        }
    }

    private static ResourceUpdate findByTokenAndValue(List<ResourceUpdate> candidates, ResourceAccess access) {
        for (ResourceUpdate update : candidates) {
            if (update.token() == access.token() && (access.value() == null || update.value() == access.value())) {
                return update;
            }
        }
        return null;
    }

    private static boolean writtenWithUnknownOutcome(List<ResourceAccess> accesses, ResourceUpdate update) {
        for (ResourceAccess access : accesses) {
            if (access.op() == AccessOp.WRITE
                    && access.outcome() == AccessOutcome.UNKNOWN
                    && access.token() == update.token()
                    && (access.value() == null || access.value() == update.value())) {
                return true;
            }
        }
        return false;
    }
}
