package io.leasehold.lock.history;

/**
 * What a declared fault does to the guarantees, which decides how the checker judges overlaps and
 * unfinished workers around it. Only the first two can excuse an overlap the earlier holder was not
 * told of in time: no lock can prevent those (see the README, "What a Redis lock cannot guarantee").
 */
public enum FaultEffect {
    /**
     * Redis lost writes: a restart without persistence, a failover to a replica that had not received
     * them, a flush. A lock granted before or during the window may be granted again.
     */
    DATA_LOSS,
    /**
     * The {@code target} process was frozen (SIGSTOP, a long GC pause): it cannot be told anything
     * until it runs again, and it may wake inside a section whose lease ran out.
     */
    PAUSE,
    /** The {@code target} process was killed at the window's start: its open section ends there and it never finishes. */
    KILL,
    /** Anything else (latency, partitions, cut connections, a paused Redis): excuses nothing. */
    OTHER
}
