package io.leasehold.lock.safety;

import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.checker.CheckReport;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code SIGSTOP} of a worker inside a section for twice its lease, then {@code SIGCONT}: on resume it
 * must be told at once, and its write (made after another worker took the lock) must be rejected.
 */
final class PauseHolder implements Scenario {

    private Holder holder;
    private long resumed;

    @Override
    public String name() {
        return "sigstop-holder";
    }

    @Override
    public String description() {
        return "SIGSTOP of a holder for 2 x its lease: on SIGCONT it is told within " + RunContext.MARGIN.toMillis()
                + " ms, and its late write is rejected";
    }

    @Override
    public void inject(RunContext run) throws Exception {
        holder = run.awaitHolder(Duration.ofSeconds(30));
        long start = RunContext.now();
        holder.worker().pause();
        try {
            RunContext.sleep(LEASE.multipliedBy(2));
        } finally {
            resumed = RunContext.now(); // just before SIGCONT: no thread of it can run earlier
            holder.worker().resume();
        }
        run.declare("sigstop", FaultEffect.PAUSE, holder.worker().name(), start, RunContext.now());
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        String who = holder.worker().name() + "'s lease " + holder.token() + " of " + holder.lock();
        Optional<HistoryFacts.Span> span = run.facts().span(holder.worker().name(), holder.lock(), holder.token());
        Long told = span.map(HistoryFacts.Span::toldAt).orElse(null);
        long bound = RunContext.MARGIN.toNanos() / 1000;
        run.expect(
                told != null && told - resumed <= bound,
                who + " must be told within " + RunContext.millis(bound)
                        + " of SIGCONT, but "
                        + (told == null
                                ? "was never told"
                                : "was told " + RunContext.millis(told - resumed) + " after"));
        boolean takenMeanwhile = run.facts()
                .firstSectionFrom(holder.lock(), holder.seenAt())
                .filter(next -> next.start() < resumed)
                .isPresent();
        run.expect(
                takenMeanwhile,
                "another worker must take " + holder.lock() + " while "
                        + holder.worker().name() + " is frozen (the scenario proves nothing otherwise)");
        Optional<ResourceAccess> write = run.facts().write(holder.worker().name(), holder.lock(), holder.token());
        run.expect(
                !takenMeanwhile
                        || write.map(w -> w.outcome() == AccessOutcome.REJECTED).orElse(false),
                who + ": its write after SIGCONT must be rejected, but was "
                        + write.map(w -> w.outcome().name()).orElse("not made"));
        if (told != null) {
            run.figure("told " + RunContext.millis(told - resumed) + " after SIGCONT; late write "
                    + write.map(w -> w.outcome().name().toLowerCase(java.util.Locale.ROOT))
                            .orElse("not made"));
        }
    }
}
