package io.leasehold.lock.safety;

import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.SectionEnding;
import io.leasehold.lock.history.checker.CheckReport;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * {@code SIGSTOP}, for twice the lease, of a worker inside a section while other threads of the same
 * worker wait for that lock (its release would be a handoff), then {@code SIGCONT}: another process
 * takes the lock meanwhile; on resume the frozen lease is told at once, as {@code EXPIRED} (the process
 * stalled; Redis answered all along), its {@code release()} returns false, and its local waiters are
 * not handed the lock the other process holds (no overlap), with tokens rising.
 */
final class PauseHandoffHolder implements Scenario {

    /**
     * Latency each way on every worker's connection in the {@link #whileRenewing()} form: its
     * renewals (every 667 ms) then wait 500 ms for their reply, so one is most likely in flight when
     * the worker is frozen; Redis answers it within 500 ms all the same, long before {@code SIGCONT}.
     */
    private static final Duration RENEWAL_LATENCY = Duration.ofMillis(250);

    private final boolean renewing;
    private RunContext.WorkerLine holder;
    private long resumed;

    PauseHandoffHolder() {
        this(false);
    }

    private PauseHandoffHolder(boolean renewing) {
        this.renewing = renewing;
    }

    /**
     * The same with {@link #RENEWAL_LATENCY} on the frozen worker's connection, so that a renewal is
     * likely in flight at the freeze: its reply is in the socket when the process resumes, and the
     * loss is still the stall's ({@code EXPIRED}), not the backend's.
     */
    static PauseHandoffHolder whileRenewing() {
        return new PauseHandoffHolder(true);
    }

    @Override
    public boolean proxied() {
        return renewing;
    }

    @Override
    public String name() {
        return renewing ? "sigstop-renewing-holder" : "sigstop-handoff-holder";
    }

    @Override
    public String description() {
        return "SIGSTOP for 2 x the lease of a holder with local waiters"
                + (renewing
                        ? ", a renewal likely in flight (" + RENEWAL_LATENCY.toMillis() + " ms latency each way)"
                        : "")
                + ": told (EXPIRED) within "
                + RunContext.MARGIN.toMillis() + " ms of SIGCONT, release() false, no overlap, tokens rise";
    }

    @Override
    public int threadsPerWorker() {
        return HandoffDemands.THREADS;
    }

    @Override
    public void inject(RunContext run) throws Exception {
        if (renewing) {
            // Every worker's link, not only the frozen one's: with a slow link of its own, a worker loses
            // every race for a freed lock to the others (seen: 3 acquires of 20 s timed out in a row).
            run.proxies().forEach(proxy -> proxy.latency(RENEWAL_LATENCY));
            RunContext.sleep(Duration.ofSeconds(1)); // renewals and sections under the latency from now on
        }
        holder = run.awaitLine(run.target(), "IN", 1, Duration.ofSeconds(30));
        long start = RunContext.now();
        holder.worker().pause();
        try {
            RunContext.sleep(LEASE.multipliedBy(2));
        } finally {
            resumed = RunContext.now();
            holder.worker().resume();
        }
        if (renewing) {
            run.proxies().forEach(proxy -> proxy.latency(Duration.ZERO));
        }
        run.declare("sigstop", FaultEffect.PAUSE, holder.worker().name(), start, RunContext.now());
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        String process = holder.worker().name();
        String who = process + "'s lease " + holder.token() + " of " + holder.lock() + " (" + holder.waiters()
                + " local waiter(s))";
        Optional<HistoryFacts.Span> span = run.facts().span(process, holder.lock(), holder.token());
        Long told = span.map(HistoryFacts.Span::toldAt).orElse(null);
        String reason = span.map(HistoryFacts.Span::reason).orElse(null);
        long bound = RunContext.MARGIN.toNanos() / 1000;
        run.expect(
                told != null && told - resumed <= bound,
                who + " must be told within " + RunContext.millis(bound) + " of SIGCONT, but "
                        + (told == null
                                ? "was never told"
                                : "was told " + RunContext.millis(told - resumed) + " after"));
        run.expect(
                "EXPIRED".equals(reason),
                who + ": the process stalled while Redis answered, so the loss must be EXPIRED, but was " + reason);
        SectionEnding ending = span.map(HistoryFacts.Span::ending).orElse(null);
        run.expect(
                ending == SectionEnding.NOT_HELD,
                who + ": release() after SIGCONT must return false (NOT_HELD), but the section ended " + ending);
        boolean takenMeanwhile = run.facts()
                .firstSectionFrom(holder.lock(), holder.seenAt())
                .filter(next -> next.start() < resumed && !next.process().equals(process))
                .isPresent();
        run.expect(
                takenMeanwhile,
                "another process must take " + holder.lock() + " while " + process
                        + " is frozen (the scenario proves nothing otherwise)");
        Optional<ResourceAccess> write = run.facts().write(process, holder.lock(), holder.token());
        run.expect(
                !takenMeanwhile
                        || write.map(w -> w.outcome() == AccessOutcome.REJECTED).orElse(false),
                who + ": its write after SIGCONT must be rejected, but was "
                        + write.map(w -> w.outcome().name()).orElse("not made"));
        HandoffDemands.tokensRise(run, Map.of(process, resumed));
        if (told != null) {
            run.figure(
                    "told " + reason + " " + RunContext.millis(told - resumed) + " after SIGCONT; release " + ending);
        }
    }
}
