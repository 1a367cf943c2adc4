package io.leasehold.lock.safety;

import io.leasehold.lock.history.AccessOp;
import io.leasehold.lock.history.AcquireAttempt;
import io.leasehold.lock.history.AcquireOutcome;
import io.leasehold.lock.history.History;
import io.leasehold.lock.history.HistoryEvent;
import io.leasehold.lock.history.LossSignal;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.SectionEnded;
import io.leasehold.lock.history.SectionEnding;
import io.leasehold.lock.history.SectionStarted;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The facts of one run's history a scenario's own demands need (the checker judges the rest): each
 * section with its end and earliest loss signal, the accesses, the acquire attempts.
 */
final class HistoryFacts {

    /**
     * One section: {@code end} and {@code ending} are {@code null} when its process never wrote the end
     * (killed); {@code reason} is the earliest loss signal's reason, {@code null} if it was never told.
     */
    record Span(
            String process,
            String lock,
            long token,
            long start,
            Long end,
            SectionEnding ending,
            Long toldAt,
            String reason) {
        boolean openAt(long time) {
            return start <= time && (end == null || end > time);
        }
    }

    private final List<Span> spans = new ArrayList<>();
    private final List<ResourceAccess> accesses = new ArrayList<>();
    private final List<AcquireAttempt> attempts = new ArrayList<>();
    private final List<LossSignal> losses = new ArrayList<>();

    HistoryFacts(History history) {
        Map<String, SectionStarted> starts = new HashMap<>();
        Map<String, SectionEnded> ends = new HashMap<>();
        Map<String, LossSignal> told = new HashMap<>();
        for (HistoryEvent event : history.events()) {
            if (event instanceof SectionStarted s) {
                starts.put(key(s.process(), s.lock(), s.token()), s);
            } else if (event instanceof SectionEnded e) {
                ends.put(key(e.process(), e.lock(), e.token()), e);
            } else if (event instanceof LossSignal l) {
                losses.add(l);
                told.merge(key(l.process(), l.lock(), l.token()), l, (a, b) -> a.time() <= b.time() ? a : b);
            } else if (event instanceof ResourceAccess a) {
                accesses.add(a);
            } else if (event instanceof AcquireAttempt a) {
                attempts.add(a);
            }
        }
        starts.forEach((key, s) -> {
            SectionEnded end = ends.get(key);
            LossSignal loss = told.get(key);
            spans.add(new Span(
                    s.process(),
                    s.lock(),
                    s.token(),
                    s.time(),
                    end == null ? null : end.time(),
                    end == null ? null : end.ending(),
                    loss == null ? null : loss.time(),
                    loss == null ? null : loss.reason()));
        });
        spans.sort(java.util.Comparator.comparingLong(Span::start));
    }

    List<Span> spans() {
        return spans;
    }

    Optional<Span> span(String process, String lock, long token) {
        return spans.stream()
                .filter(s -> s.process().equals(process) && s.lock().equals(lock) && s.token() == token)
                .findFirst();
    }

    List<Span> openAt(long time) {
        return spans.stream().filter(s -> s.openAt(time)).toList();
    }

    List<LossSignal> losses() {
        return losses;
    }

    /**
     * The loss signals told from {@code from} to {@code to}: those a fault in that window can have
     * caused. (On a loaded machine a worker loses leases to its own stalls too: a cold JVM that sent its
     * first acquire seconds before the reply came back, or a process starved of CPU for longer than a
     * renewal can wait, seen as callbacks running a second late.)
     */
    List<LossSignal> lossesBetween(long from, long to) {
        return losses.stream().filter(l -> l.time() >= from && l.time() <= to).toList();
    }

    /** The section's write, if it made one. */
    Optional<ResourceAccess> write(String process, String lock, long token) {
        return accesses.stream()
                .filter(a -> a.process().equals(process)
                        && a.lock().equals(lock)
                        && a.token() == token
                        && a.op() == AccessOp.WRITE)
                .findFirst();
    }

    long attempts(AcquireOutcome outcome) {
        return attempts.stream().filter(a -> a.outcome() == outcome).count();
    }

    /**
     * The longest an acquire begun at or after {@code since} took (waiting included), in microseconds
     * (the first acquire of a worker includes its client's start-up: pass the fault's start).
     */
    long longestAcquireMicros(long since) {
        return attempts.stream()
                .filter(a -> a.start() >= since)
                .mapToLong(a -> a.end() - a.start())
                .max()
                .orElse(0);
    }

    /** The first section of {@code lock} that started at or after {@code time}. */
    Optional<Span> firstSectionFrom(String lock, long time) {
        return spans.stream()
                .filter(s -> s.lock().equals(lock) && s.start() >= time)
                .findFirst();
    }

    /** Sections whose release returned true (confirmed by Redis) and that were also told of a loss: a false loss. */
    List<Span> releasedButTold() {
        return spans.stream()
                .filter(s -> s.ending() == SectionEnding.RELEASED && s.toldAt() != null)
                .toList();
    }

    /**
     * Pairs of sections of one lock, the first ended before the second began, where the second has the
     * smaller token (tokens must rise with the order the sections ran in). A second section whose
     * process was frozen and whose acquire returned before the process resumed ({@code resumedAt}: per
     * process, when it was last resumed) is left out: its lease was handed out before the freeze, and
     * its section's start is written only after it.
     */
    List<String> tokensAgainstSectionOrder(Map<String, Long> resumedAt) {
        List<String> found = new ArrayList<>();
        for (Span a : spans) {
            for (Span b : spans) {
                if (a.lock().equals(b.lock())
                        && a.end() != null
                        && a.end() < b.start()
                        && b.token() < a.token()
                        && !acquiredBefore(b, resumedAt.get(b.process()))) {
                    found.add(b.process() + "'s section of " + b.lock() + " with token " + b.token() + " began at "
                            + b.start() + ", after " + a.process() + "'s with the larger token " + a.token()
                            + " ended at " + a.end());
                }
            }
        }
        return found;
    }

    private boolean acquiredBefore(Span span, Long time) {
        return time != null
                && attempts.stream()
                        .anyMatch(a -> a.outcome() == AcquireOutcome.ACQUIRED
                                && a.process().equals(span.process())
                                && a.lock().equals(span.lock())
                                && a.token() == span.token()
                                && a.end() <= time);
    }

    private static String key(String process, String lock, long token) {
        return process + "\u0000" + lock + "\u0000" + token;
    }
}
