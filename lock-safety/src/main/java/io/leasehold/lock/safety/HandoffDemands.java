package io.leasehold.lock.safety;

import java.time.Duration;
import java.util.Map;

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
     * Every lock is taken by a process other than {@code gone} within the lease + the margin of
     * {@code from} (the workers ask for every lock in turn, so this measures how long a lock of the
     * killed process stays in Redis).
     */
    static void takenByOthersWithin(RunContext run, String gone, long from) {
        long bound = Scenario.LEASE.plus(RunContext.MARGIN).toNanos() / 1000;
        for (String lock : SuiteSettings.LOCKS) {
            Long taken = run.facts().spans().stream()
                    .filter(s -> s.lock().equals(lock) && !s.process().equals(gone) && s.start() >= from)
                    .map(HistoryFacts.Span::start)
                    .findFirst()
                    .orElse(null);
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
