package io.leasehold.lock.history.checker;

import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.AcquireAttempt;
import io.leasehold.lock.history.HistoryEvent;
import io.leasehold.lock.history.LossSignal;
import io.leasehold.lock.history.ProcessEnded;
import io.leasehold.lock.history.ProcessStarted;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.SectionStarted;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Progress of each worker (a process with a {@code process-start} or an {@code acquire} record; a
 * nemesis or runner that only declares faults or copies the resource is not one): what it achieved,
 * and whether it was starved (tried, got fewer leases than required), hung (silent for longer than
 * allowed, counting up to the end of the run when it never finished) or unfinished (started, never
 * wrote {@code process-end}, and no declared kill explains it).
 */
final class ProgressCheck {

    private ProgressCheck() {}

    static Map<String, ProcessProgress> run(HistoryIndex index, CheckOptions options, List<Violation> violations) {
        Map<String, ProcessProgress> progress = new TreeMap<>();
        index.byProcess.forEach((process, records) -> {
            if (records.stream().noneMatch(r -> r instanceof ProcessStarted || r instanceof AcquireAttempt)) {
                return;
            }
            ProcessProgress p = measure(index, process, records);
            progress.put(process, p);
            judge(index, options, records, p, violations);
        });
        return progress;
    }

    private static ProcessProgress measure(HistoryIndex index, String process, List<HistoryEvent> records) {
        long attempts = 0;
        long acquired = 0;
        long timeouts = 0;
        long errors = 0;
        long cancelled = 0;
        long sections = 0;
        long accepted = 0;
        long rejected = 0;
        long unknown = 0;
        Set<SectionKey> lost = new HashSet<>();
        boolean finished = false;
        List<Long> times = new ArrayList<>();
        for (HistoryEvent record : records) {
            times.add(record.latestTime());
            if (record instanceof AcquireAttempt attempt) {
                attempts++;
                switch (attempt.outcome()) {
                    case ACQUIRED -> acquired++;
                    case TIMEOUT -> timeouts++;
                    case ERROR -> errors++;
                    case CANCELLED -> cancelled++;
                }
            } else if (record instanceof SectionStarted) {
                sections++;
            } else if (record instanceof ResourceAccess access) {
                if (access.outcome() == AccessOutcome.ACCEPTED) {
                    accepted++;
                } else if (access.outcome() == AccessOutcome.REJECTED) {
                    rejected++;
                } else {
                    unknown++;
                }
            } else if (record instanceof LossSignal loss) {
                lost.add(new SectionKey(loss.process(), loss.lock(), loss.token()));
            } else if (record instanceof ProcessEnded) {
                finished = true;
            }
        }
        times.sort(Long::compare);
        long longestSilence = 0;
        for (int i = 1; i < times.size(); i++) {
            longestSilence = Math.max(longestSilence, times.get(i) - times.get(i - 1));
        }
        if (!finished && !times.isEmpty()) {
            Long killed = index.killTime(process);
            long until = killed != null ? Math.max(killed, times.get(times.size() - 1)) : index.runEnd;
            longestSilence = Math.max(longestSilence, until - times.get(times.size() - 1));
        }
        return new ProcessProgress(
                process,
                attempts,
                acquired,
                timeouts,
                errors,
                cancelled,
                sections,
                accepted,
                rejected,
                unknown,
                lost.size(),
                longestSilence,
                finished);
    }

    private static void judge(
            HistoryIndex index,
            CheckOptions options,
            List<HistoryEvent> records,
            ProcessProgress p,
            List<Violation> violations) {
        if (p.acquired() < options.minAcquisitions()) {
            violations.add(new Violation(
                    ViolationKind.STARVED,
                    p.process() + " acquired " + p.acquired() + " lease(s) in "
                            + p.attempts() + " attempt(s) (" + p.timeouts() + " timed out, " + p.errors() + " failed, "
                            + p.cancelled() + " cancelled); at least " + options.minAcquisitions() + " required"));
        }
        long maxSilence = options.maxSilence().toNanos() / 1_000;
        if (p.longestSilenceMicros() > maxSilence) {
            violations.add(new Violation(
                    ViolationKind.HUNG,
                    p.process() + " wrote nothing for "
                            + Duration.ofNanos(p.longestSilenceMicros() * 1_000) + ", longer than the "
                            + options.maxSilence()
                            + " allowed" + (p.finished() ? "" : " (it never finished)")));
        }
        boolean started = records.stream().anyMatch(r -> r instanceof ProcessStarted);
        if (started && !p.finished() && !index.killed(p.process())) {
            violations.add(new Violation(
                    ViolationKind.UNFINISHED,
                    p.process() + " started but never wrote process-end, and no KILL fault of it was declared"));
        }
    }
}
