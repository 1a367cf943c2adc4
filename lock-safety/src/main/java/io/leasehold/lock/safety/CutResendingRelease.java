package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import io.leasehold.lock.testkit.faults.FaultProxy;
import java.time.Duration;
import java.util.Map;

/**
 * A worker's Redis connections cut (and new ones refused) right as it releases with a handoff, so that
 * the release is being resent when, 300 ms later, the worker is frozen ({@code SIGSTOP} for 2 x the
 * lease; connections allowed again just before {@code SIGCONT}); later the same again, ended by
 * {@code kill -9} instead. No overlap, no false loss, tokens rise, every lock taken by another process
 * within the lease + the margin of the kill, no lock left after the stop.
 */
final class CutResendingRelease implements Scenario {

    private static final Duration RESENDING = Duration.ofMillis(300);

    private RunContext.WorkerLine frozen;
    private RunContext.WorkerLine killedLine;
    private long resumed;
    private long killed;

    @Override
    public String name() {
        return "cut-resending-release";
    }

    @Override
    public String description() {
        return "connections cut while a handoff is sent, then SIGSTOP (2 x the lease) and later kill -9 while it is"
                + " resent: no overlap, no false loss, locks free within the lease + margin, none left";
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
        FaultProxy proxy = run.proxyOf(target);
        frozen = run.awaitLine(target, "RELEASING", 1, Duration.ofSeconds(30));
        long start = RunContext.now();
        proxy.refuseNewConnections();
        proxy.cutConnections();
        RunContext.sleep(RESENDING);
        long paused = RunContext.now();
        target.pause();
        try {
            RunContext.sleep(LEASE.multipliedBy(2));
        } finally {
            proxy.resume();
            resumed = RunContext.now();
            target.resume();
        }
        run.declare("cut", FaultEffect.OTHER, target.name(), start, resumed);
        run.declare("sigstop", FaultEffect.PAUSE, target.name(), paused, RunContext.now());
        // It must work again before the second round.
        int from = target.lineCount();
        if (target.awaitLine(from, line -> line.startsWith("OUT "), Duration.ofSeconds(30)) < 0) {
            throw new IllegalStateException(target.name() + " finished no section within 30 s of SIGCONT");
        }
        killedLine = run.awaitLine(target, "RELEASING", 1, Duration.ofSeconds(30));
        start = RunContext.now();
        proxy.refuseNewConnections();
        proxy.cutConnections();
        RunContext.sleep(RESENDING);
        Map<WorkerProcess, Integer> marks = HandoffDemands.lineMarks(run, target.name());
        killed = RunContext.now();
        target.kill();
        proxy.resume();
        run.declare("cut", FaultEffect.OTHER, target.name(), start, killed);
        run.declare("kill-9", FaultEffect.KILL, target.name(), killed, RunContext.now());
        HandoffDemands.awaitTakenByOthers(marks); // the run must outlast the killed process's leases
    }

    @Override
    public void afterStop(RunContext run) throws Exception {
        HandoffDemands.noLockLeft(run);
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        HandoffDemands.noFalseLoss(run);
        HandoffDemands.tokensRise(run, Map.of(run.target().name(), resumed));
        HandoffDemands.takenByOthersWithin(run, run.target().name(), killed);
        run.facts()
                .span(frozen.worker().name(), frozen.lock(), frozen.token())
                .ifPresent(span -> run.figure("frozen release ended " + span.ending()
                        + (span.reason() == null ? "" : " (told " + span.reason() + ")")));
    }
}
