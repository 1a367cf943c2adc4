package io.leasehold.lock.safety;

import io.leasehold.lock.history.checker.CheckReport;
import java.time.Duration;

/**
 * One named fault: how the lock server is laid out for it, what it does to a run once every worker
 * has finished a section, and what it demands of the run beyond the {@link
 * io.leasehold.lock.history.checker.HistoryChecker}'s verdict (which every run must pass).
 */
interface Scenario {

    /** The lease every worker takes in the suite: short, so that faults longer than it fit a short run. */
    Duration LEASE = Duration.ofSeconds(2);

    /**
     * The quorum's {@code maxLeaseTime} in the quorum scenarios: 1.5 x the lease, so that a member
     * restarted empty sits out only a few seconds before it grants again.
     */
    Duration QUORUM_MAX_LEASE = LEASE.multipliedBy(3).dividedBy(2);

    /** Where the locks live. */
    enum Topology {
        STANDALONE,
        SENTINEL,
        /**
         * {@link #quorumMembers()} independent standalone redis-servers, each worker locking through a
         * {@link io.leasehold.lock.quorum.QuorumBackend} over them (maxLeaseTime {@link #QUORUM_MAX_LEASE}).
         */
        QUORUM
    }

    /** The scenario's name in the results table, e.g. {@code kill-holder}. */
    String name();

    /** What it does and demands, in a line, for the README and a failure message. */
    String description();

    default Topology topology() {
        return Topology.STANDALONE;
    }

    /** How many redis-servers a {@link Topology#QUORUM} scenario's quorum has (odd, at least 3). */
    default int quorumMembers() {
        return 3;
    }

    /**
     * True when each worker reaches Redis through a {@link io.leasehold.lock.testkit.faults.FaultProxy} of its own
     * (in a {@link Topology#QUORUM}, one per worker per member).
     */
    default boolean proxied() {
        return false;
    }

    /**
     * True when the fault loses Redis data (restart without persistence, failover to a lagging
     * replica): only there may the checker find overlaps nobody was told of in time, under its
     * separate rules.
     */
    default boolean losesData() {
        return false;
    }

    /**
     * When present, the first worker ({@link RunContext#target()}) holds every section this long (longer
     * than the lease, so renewals must keep it), and the fault is aimed at it: a holder still inside
     * its section when its validity would run out, instead of one that happens to finish first.
     */
    default java.util.Optional<Duration> targetHold() {
        return java.util.Optional.empty();
    }

    /** True when the workers take {@code fairLock(name)} (strict FIFO across processes) instead of {@code lock(name)}. */
    default boolean fair() {
        return false;
    }

    /**
     * How many contending threads each worker runs on its one client: more than one, and a release
     * may hand the lock to a waiter of the same process (a handoff) while other processes wait too.
     */
    default int threadsPerWorker() {
        return 1;
    }

    /** Injects the fault into a running run, declaring it in the nemesis history. */
    void inject(RunContext run) throws Exception;

    /**
     * Runs once every worker has stopped (or was killed), while the lock server still runs: for
     * demands on what the run left in Redis.
     */
    default void afterStop(RunContext run) throws Exception {}

    /** Checks what this fault demands beyond the checker's verdict; records findings in {@code run}. */
    default void judge(RunContext run, CheckReport report) {}
}
