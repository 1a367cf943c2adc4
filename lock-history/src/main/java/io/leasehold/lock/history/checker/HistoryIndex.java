package io.leasehold.lock.history.checker;

import io.leasehold.lock.history.AcquireAttempt;
import io.leasehold.lock.history.AcquireOutcome;
import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.FaultWindow;
import io.leasehold.lock.history.History;
import io.leasehold.lock.history.HistoryEvent;
import io.leasehold.lock.history.LossSignal;
import io.leasehold.lock.history.ProcessEnded;
import io.leasehold.lock.history.ProcessStarted;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.ResourceState;
import io.leasehold.lock.history.ResourceUpdate;
import io.leasehold.lock.history.SectionEnded;
import io.leasehold.lock.history.SectionStarted;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The history grouped for the checks: sections with their accesses, losses and acquire times;
 * acquisitions per lock; accesses and the resource's own records per resource; declared faults; and
 * the records of each process. Records that do not fit together are reported as violations here.
 */
final class HistoryIndex {

    final List<HistoryEvent> events;
    final long runStart;
    final long runEnd;
    final Map<SectionKey, TrackedSection> tracked = new LinkedHashMap<>();
    final Map<String, List<Section>> sectionsByLock = new TreeMap<>();
    final Map<SectionKey, Section> sections = new HashMap<>();
    final Map<String, List<AcquireAttempt>> acquisitionsByLock = new TreeMap<>();
    final Map<SectionKey, List<LossSignal>> losses = new HashMap<>();
    final Map<String, List<ResourceAccess>> accessesByResource = new TreeMap<>();
    final Map<String, ResourceState> resourceStates = new TreeMap<>();
    final Map<String, List<ResourceUpdate>> updatesByResource = new TreeMap<>();
    final List<FaultWindow> faults = new ArrayList<>();
    final Map<String, List<HistoryEvent>> byProcess = new TreeMap<>();
    final List<Violation> violations = new ArrayList<>();

    HistoryIndex(History history) {
        this.events = history.events();
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (HistoryEvent event : events) {
            first = Math.min(first, event.latestTime());
            last = Math.max(last, event.latestTime());
            byProcess.computeIfAbsent(event.process(), p -> new ArrayList<>()).add(event);
        }
        this.runStart = events.isEmpty() ? 0 : first;
        this.runEnd = events.isEmpty() ? 0 : last;
        // Sections first, so that accesses and losses find them whatever the order of the files.
        for (HistoryEvent event : events) {
            if (event instanceof SectionStarted start) {
                addStart(start);
            }
        }
        for (HistoryEvent event : events) {
            index(event);
        }
        freezeSections();
    }

    /** True when the history declares that {@code process} was killed. */
    boolean killed(String process) {
        return killTime(process) != null;
    }

    /** When {@code process} was killed (the first declared {@code KILL} of it), or {@code null}. */
    Long killTime(String process) {
        Long time = null;
        for (FaultWindow fault : faults) {
            if (fault.effect() == FaultEffect.KILL && process.equals(fault.target())) {
                time = time == null ? fault.start() : Math.min(time, fault.start());
            }
        }
        return time;
    }

    /** The processes that held a section with {@code token} (on any lock). */
    List<String> holdersOf(long token) {
        List<String> holders = new ArrayList<>();
        for (SectionKey key : sections.keySet()) {
            if (key.token() == token) {
                holders.add(key.process());
            }
        }
        return holders;
    }

    private void addStart(SectionStarted start) {
        SectionKey key = new SectionKey(start.process(), start.lock(), start.token());
        if (tracked.containsKey(key)) {
            violations.add(new Violation(
                    ViolationKind.MALFORMED_HISTORY,
                    "section " + key + " started twice (at " + tracked.get(key).start + " and " + start.time()
                            + "): a token must identify one section"));
            return;
        }
        tracked.put(key, new TrackedSection(key, start.time()));
    }

    private void index(HistoryEvent event) {
        if (event instanceof SectionEnded end) {
            SectionKey key = new SectionKey(end.process(), end.lock(), end.token());
            TrackedSection section = tracked.get(key);
            if (section == null) {
                violations.add(new Violation(
                        ViolationKind.MALFORMED_HISTORY,
                        "section " + key + " ended at " + end.time() + " but never started"));
            } else if (section.end != null) {
                violations.add(new Violation(
                        ViolationKind.MALFORMED_HISTORY,
                        "section " + key + " ended twice (at " + section.end + " and " + end.time() + ")"));
            } else if (end.time() < section.start) {
                violations.add(new Violation(
                        ViolationKind.MALFORMED_HISTORY,
                        "section " + key + " ended at " + end.time() + ", before it started at " + section.start));
            } else {
                section.end = end.time();
                section.ending = end.ending();
            }
        } else if (event instanceof AcquireAttempt attempt) {
            if (attempt.outcome() == AcquireOutcome.ACQUIRED) {
                acquisitionsByLock
                        .computeIfAbsent(attempt.lock(), l -> new ArrayList<>())
                        .add(attempt);
                TrackedSection section =
                        tracked.get(new SectionKey(attempt.process(), attempt.lock(), attempt.token()));
                if (section != null) {
                    section.acquireStart = attempt.start();
                }
            }
        } else if (event instanceof LossSignal loss) {
            SectionKey key = new SectionKey(loss.process(), loss.lock(), loss.token());
            losses.computeIfAbsent(key, k -> new ArrayList<>()).add(loss);
            TrackedSection section = tracked.get(key);
            if (section != null && (section.earliestLoss == null || loss.time() < section.earliestLoss)) {
                section.earliestLoss = loss.time();
            }
        } else if (event instanceof ResourceAccess access) {
            accessesByResource
                    .computeIfAbsent(access.resource(), r -> new ArrayList<>())
                    .add(access);
            TrackedSection section = tracked.get(new SectionKey(access.process(), access.lock(), access.token()));
            if (section == null) {
                violations.add(new Violation(
                        ViolationKind.ACCESS_OUTSIDE_SECTION,
                        describe(access)
                                + " belongs to no section of " + access.process() + " on lock '" + access.lock()
                                + "' with token "
                                + access.token() + ": its overlap with other holders cannot be judged"));
            } else {
                section.accesses.add(access);
            }
        } else if (event instanceof ResourceState state) {
            ResourceState known = resourceStates.get(state.resource());
            if (known == null || state.time() >= known.time()) {
                resourceStates.put(state.resource(), state);
            }
        } else if (event instanceof ResourceUpdate update) {
            updatesByResource
                    .computeIfAbsent(update.resource(), r -> new ArrayList<>())
                    .add(update);
        } else if (event instanceof FaultWindow fault) {
            faults.add(fault);
        } else if (!(event instanceof SectionStarted
                || event instanceof ProcessStarted
                || event instanceof ProcessEnded)) {
            throw new IllegalStateException("unhandled history event " + event);
        }
    }

    private void freezeSections() {
        for (TrackedSection section : tracked.values()) {
            Long killed = killTime(section.key.process());
            long openEnd = killed != null && killed >= section.start ? killed : runEnd;
            Section frozen = section.toSection(openEnd);
            sections.put(section.key, frozen);
            sectionsByLock
                    .computeIfAbsent(frozen.lock(), l -> new ArrayList<>())
                    .add(frozen);
            for (ResourceAccess access : section.accesses) {
                if (access.start() < frozen.start() || access.end() > frozen.end()) {
                    violations.add(new Violation(
                            ViolationKind.ACCESS_OUTSIDE_SECTION,
                            describe(access)
                                    + " is not within its section " + frozen.describe()
                                    + ": the section's times must contain every access it made"));
                }
            }
        }
        sectionsByLock
                .values()
                .forEach(list ->
                        list.sort(Comparator.comparingLong(Section::start).thenComparingLong(Section::token)));
    }

    /** The accesses of {@code section}, in the resource's order where it numbered them, else by start. */
    List<ResourceAccess> accessesOf(Section section) {
        TrackedSection trackedSection = tracked.get(new SectionKey(section.process(), section.lock(), section.token()));
        List<ResourceAccess> accesses = new ArrayList<>(trackedSection == null ? List.of() : trackedSection.accesses);
        accesses.sort(Comparator.comparingLong(ResourceAccess::start));
        return accesses;
    }

    static String describe(ResourceAccess access) {
        return access.op() + " of '" + access.resource() + "' by " + access.process() + " with token " + access.token()
                + " [" + access.start() + ".." + access.end() + "] " + access.outcome()
                + (access.seq() == null ? "" : " (seq " + access.seq() + ")");
    }
}
