package io.leasehold.lock.safety;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Demands shared by the scenarios whose workers run several threads on one client, so that releases
 * hand the lock to local waiters (handoffs) while other processes wait too.
 */
final class HandoffDemands {

    /** Threads per worker in those scenarios: with 2 locks, a release usually finds a local waiter. */
    static final int THREADS = 3;

    /** Latency each way on the target's proxy: a release (a handoff) is in flight long enough to be hit. */
    static final Duration LATENCY = Duration.ofMillis(100);

    private HandoffDemands() {}

    /** No lease whose release returned true (Redis confirmed it) was also told of a loss. */
    static void noFalseLoss(RunContext run) {
        for (HistoryFacts.Span span : run.facts().releasedButTold()) {
            run.expect(
                    false,
                    span.process() + "'s lease " + span.token() + " of " + span.lock()
                            + ": its release returned true (confirmed), yet it was told of a loss ("
                            + span.reason() + ")");
        }
    }

    /**
     * Tokens rise with the order in which the sections ran (see {@link HistoryFacts#tokensAgainstSectionOrder}:
     * {@code resumedAt} names the frozen processes and when each was last resumed).
     */
    static void tokensRise(RunContext run, Map<String, Long> resumedAt) {
        run.facts()
                .tokensAgainstSectionOrder(resumedAt)
                .forEach(found -> run.expect(false, "tokens must rise with the sections' order: " + found));
    }

    /**
     * Every lock that {@code gone} held when it was killed at {@code from} (a section of it still open
     * in its history, as when the kill came while it released, or handed the lock on, with its reply on
     * the way) is taken by another process within the lease + the margin: how long a lock of the killed
     * process stays in Redis. A lock it did not hold is free anyway, and the workers may not happen to
     * ask for it again before the run ends, so it only gets a figure.
     */
    static void takenByOthersWithin(RunContext run, String gone, long from) {
        long bound = Scenario.LEASE.plus(RunContext.MARGIN).toNanos() / 1000;
        for (String lock : SuiteSettings.LOCKS) {
            boolean heldAtKill = run.facts().spans().stream()
                    .anyMatch(s -> s.process().equals(gone) && s.lock().equals(lock) && s.openAt(from));
            Long taken = run.facts().spans().stream()
                    .filter(s -> s.lock().equals(lock) && !s.process().equals(gone) && s.start() >= from)
                    .map(HistoryFacts.Span::start)
                    .min(Long::compare)
                    .orElse(null);
            if (!heldAtKill) {
                run.figure(lock + " not held by " + gone + " at its kill -9"
                        + (taken == null ? "" : ", next taken " + RunContext.millis(taken - from) + " after it"));
                continue;
            }
            run.expect(
                    taken != null && taken - from <= bound,
                    lock + " must be taken by another process within " + RunContext.millis(bound) + " of "
                            + gone + "'s kill -9, but was "
                            + (taken == null ? "never taken" : "taken after " + RunContext.millis(taken - from)));
            if (taken != null) {
                run.figure(lock + " taken " + RunContext.millis(taken - from) + " after kill -9");
            }
        }
    }

    /** How many lines each worker other than {@code gone} has printed so far: marks for {@link #awaitTakenByOthers}. */
    static Map<WorkerProcess, Integer> lineMarks(RunContext run, String gone) {
        Map<WorkerProcess, Integer> marks = new HashMap<>();
        for (WorkerProcess worker : run.workers()) {
            if (!worker.name().equals(gone)) {
                marks.put(worker, worker.lineCount());
            }
        }
        return marks;
    }

    /**
     * Keeps the run going until the workers in {@code marks} have entered a section of every lock
     * since their marks (their {@code IN} lines), or the lease + the margin + 2 s have passed. The
     * runner stops the workers soon after the fault, and a lock that a killed process held is free only
     * once its lease has run out: without this wait, {@link #takenByOthersWithin} could find no section
     * of it because the run had ended, not because the lock stayed taken.
     */
    static void awaitTakenByOthers(Map<WorkerProcess, Integer> marks) throws InterruptedException {
        Set<String> left = new HashSet<>(SuiteSettings.LOCKS);
        Map<WorkerProcess, Integer> next = new HashMap<>(marks);
        long deadline = System.nanoTime()
                + Scenario.LEASE.plus(RunContext.MARGIN).plusSeconds(2).toNanos();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            for (Map.Entry<WorkerProcess, Integer> entry : next.entrySet()) {
                WorkerProcess worker = entry.getKey();
                int count = worker.lineCount();
                for (int i = entry.getValue(); i < count; i++) {
                    String[] fields = worker.line(i).split(" ");
                    if (fields[0].equals("IN") && fields.length > 1) {
                        left.remove(fields[1]);
                    }
                }
                entry.setValue(count);
            }
            Thread.sleep(20); // polling the workers' output, which has no signal of its own
        }
    }

    /**
     * After every worker stopped: records the lock keys still in Redis (a clean stop releases all), and
     * demands that none is left a lease (+ the margin) later.
     */
    static void noLockLeft(RunContext run) throws InterruptedException {
        Map<String, Long> left = run.lockKeys();
        if (!left.isEmpty()) {
            run.figure("locks in Redis right after the stop: " + left);
        }
        long deadline =
                System.nanoTime() + Scenario.LEASE.plus(RunContext.MARGIN).toNanos();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            left = run.lockKeys();
        }
        run.expect(
                left.isEmpty(),
                "no lock may be left in Redis a lease (+ margin) after every worker stopped, but found (key=PTTL ms) "
                        + left);
    }
}
