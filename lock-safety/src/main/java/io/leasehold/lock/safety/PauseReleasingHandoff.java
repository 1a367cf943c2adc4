package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code SIGSTOP} of a worker right while it releases with a handoff (another thread of it waits for
 * the lock; every worker's connection has {@link HandoffDemands#LATENCY} each way, so the handoff is in flight
 * when the signal lands), three times: for 0.75 x, 1.25 x and 2 x the lease (which here is also the
 * command timeout), then {@code SIGCONT}. No overlap, no loss told of a lease whose release returned
 * true, tokens rise, and no lock is left in Redis a lease after every worker stopped.
 */
final class PauseReleasingHandoff implements Scenario {

    private static final List<Duration> STOPS =
            List.of(LEASE.multipliedBy(3).dividedBy(4), LEASE.multipliedBy(5).dividedBy(4), LEASE.multipliedBy(2));

    private final List<RunContext.WorkerLine> releases = new ArrayList<>();
    private long lastResumed;

    @Override
    public String name() {
        return "sigstop-releasing-handoff";
    }

    @Override
    public String description() {
        return "SIGSTOP (0.75, 1.25, 2 x the lease) of a worker while its handoff is in flight: no overlap, no false"
                + " loss, tokens rise, no lock left after the stop";
    }

    @Override
    public boolean proxied() {
        return true;
    }

    @Override
    public int threadsPerWorker() {
        return HandoffDemands.THREADS;
    }

    @Override
    public void inject(RunContext run) throws Exception {
        WorkerProcess target = run.target();
        // On every worker's link, not only the target's: a worker slower than the others loses the race for
        // the lock to their retries and local handoffs (fairness across clients is not promised yet), and
        // may then go 30 s without a release to stop in.
        run.proxies().forEach(proxy -> proxy.latency(HandoffDemands.LATENCY));
        try {
            for (Duration stop : STOPS) {
                RunContext.WorkerLine line = run.awaitLine(target, "RELEASING", 1, Duration.ofSeconds(30));
                // Somewhere in the handoff's round trip (~2 x the latency, plus the kill command's start).
                RunContext.sleep(Duration.ofMillis(ThreadLocalRandom.current().nextLong(150)));
                long start = RunContext.now();
                target.pause();
                try {
                    RunContext.sleep(stop);
                } finally {
                    lastResumed = RunContext.now();
                    target.resume();
                }
                run.declare("sigstop", FaultEffect.PAUSE, target.name(), start, RunContext.now());
                releases.add(line);
                RunContext.sleep(Duration.ofMillis(500));
            }
        } finally {
            run.proxies().forEach(proxy -> proxy.latency(Duration.ZERO));
        }
    }

    @Override
    public void afterStop(RunContext run) throws Exception {
        HandoffDemands.noLockLeft(run);
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        HandoffDemands.noFalseLoss(run);
        HandoffDemands.tokensRise(run, Map.of(run.target().name(), lastResumed));
        List<String> endings = new ArrayList<>();
        for (RunContext.WorkerLine line : releases) {
            run.facts()
                    .span(line.worker().name(), line.lock(), line.token())
                    .ifPresent(span -> endings.add(
                            span.ending() + (span.reason() == null ? "" : " (told " + span.reason() + ")")));
        }
        run.figure("stopped releases ended " + endings);
    }
}
