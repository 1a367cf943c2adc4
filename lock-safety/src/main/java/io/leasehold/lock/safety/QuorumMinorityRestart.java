package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisNode;
import java.time.Duration;
import java.util.List;

/**
 * A minority of a quorum's members killed ({@code kill -9}) and restarted empty (no RDB, no AOF) while
 * the target worker holds a lease on a bare majority that includes them: Redlock's classic data-loss
 * hazard. The quorum must not lose safety, so the run is judged by the checker's strict rules (the fault
 * is declared {@link FaultEffect#OTHER}, which excuses no overlap; the scenario does not declare {@link
 * #losesData()}).
 *
 * <p>Why the bare majority: were the holder's lease on every member, the members that kept it would
 * refuse everyone else whatever the restarted ones did, and the run could not fail. So the target is cut
 * off (its proxies silent) from the {@code n - majority} last members before it takes the section the
 * fault is aimed at; its lease then lives on the first {@code majority} members only, of which the first
 * {@code n - majority} are restarted. The other workers reach the restarted members and the cut-off
 * ones, together a majority: only the restarted members' sit-out ({@link Scenario#QUORUM_MAX_LEASE}
 * before they grant again) keeps them from granting while the target still holds. The target, reaching
 * a majority no longer (the restarted members sit out, the last ones are cut off), must be told it lost
 * the lease before anyone else's majority grants; the checker judges that, and that tokens rise.
 */
final class QuorumMinorityRestart implements Scenario {

    private final int members;
    private Holder holder;
    private long start;
    private long restarted;

    private QuorumMinorityRestart(int members) {
        this.members = members;
    }

    /** Quorum of 3: one member restarted empty. */
    static QuorumMinorityRestart ofThree() {
        return new QuorumMinorityRestart(3);
    }

    /** Quorum of 5: two members restarted empty. */
    static QuorumMinorityRestart ofFive() {
        return new QuorumMinorityRestart(5);
    }

    private int majority() {
        return members / 2 + 1;
    }

    /** How many members are restarted, and how many the target is cut off from: the largest minority. */
    private int minority() {
        return members - majority();
    }

    @Override
    public String name() {
        return "quorum-" + members + "-restart-" + minority() + "-no-persistence";
    }

    @Override
    public String description() {
        return "quorum of " + members + ": kill -9 of " + minority() + " member(s) under a holder's bare majority,"
                + " restarted without persistence: they sit out maxLeaseTime (" + QUORUM_MAX_LEASE.toMillis()
                + " ms), so no two holders and tokens still rise (strict rules)";
    }

    @Override
    public Topology topology() {
        return Topology.QUORUM;
    }

    @Override
    public int quorumMembers() {
        return members;
    }

    /** The target's proxies cut it off from the last members, so that its lease lives on a bare majority. */
    @Override
    public boolean proxied() {
        return true;
    }

    /** The targeted holder's sections outlast the lease, so it is still inside one when the fault bites. */
    @Override
    public java.util.Optional<Duration> targetHold() {
        return java.util.Optional.of(LEASE.multipliedBy(3).dividedBy(2));
    }

    @Override
    public void inject(RunContext run) throws Exception {
        List<FaultProxy> targetProxies = run.proxiesOf(run.target());
        List<FaultProxy> cutOff = targetProxies.subList(majority(), members);
        List<RedisNode> restartedMembers = run.quorumMembers().subList(0, minority());
        long cutAt = RunContext.now();
        cutOff.forEach(FaultProxy::partition);
        try {
            holder = awaitBareMajorityHolder(run);
            start = RunContext.now();
            for (RedisNode member : restartedMembers) {
                member.kill();
            }
            for (RedisNode member : restartedMembers) {
                member.restart();
            }
            restarted = RunContext.now();
            // A fault the quorum must tolerate: OTHER excuses no overlap in the checker.
            run.declare("quorum-minority-restart-without-persistence", FaultEffect.OTHER, null, start, restarted);
            // The hazard lasts while the restarted members would grant in the holder's place: their sit-out.
            RunContext.sleep(QUORUM_MAX_LEASE.plus(RunContext.MARGIN));
        } finally {
            cutOff.forEach(FaultProxy::resume);
        }
        run.declare("partition-from-minority", FaultEffect.OTHER, run.target().name(), cutAt, RunContext.now());
    }

    /**
     * The target's next section whose lease the cut-off members do not hold: one it took after the cut
     * (a section already under way when the proxies fell silent may hold every member; then the next).
     */
    private Holder awaitBareMajorityHolder(RunContext run) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<RedisNode> cutOffMembers = run.quorumMembers().subList(majority(), members);
        while (true) {
            Duration left = Duration.ofNanos(deadline - System.nanoTime());
            Holder candidate = run.awaitHolder(List.of(run.target()), left);
            boolean onCutOff = cutOffMembers.stream().anyMatch(member -> holds(member, candidate));
            if (!onCutOff) {
                return candidate;
            }
        }
    }

    private static boolean holds(RedisNode member, Holder holder) {
        Object value = member.command(Duration.ofSeconds(2), "GET", "leasehold:{" + holder.lock() + "}");
        return value != null && String.valueOf(value).endsWith(":" + holder.token());
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        String who = holder.worker().name() + "'s lease " + holder.token() + " of " + holder.lock();
        Long told = run.facts()
                .span(holder.worker().name(), holder.lock(), holder.token())
                .map(HistoryFacts.Span::toldAt)
                .orElse(null);
        var next = run.facts().firstSectionFrom(holder.lock(), holder.seenAt());
        run.figure("restart of " + minority() + " took " + RunContext.millis(restarted - start) + "; " + who
                + (told == null ? " not told" : " told " + RunContext.millis(told - restarted) + " after it")
                + next.map(s -> ", next holder " + RunContext.millis(s.start() - restarted) + " after it")
                        .orElse(""));
    }
}
