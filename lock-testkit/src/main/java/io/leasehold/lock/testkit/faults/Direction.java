package io.leasehold.lock.testkit.faults;

/**
 * One direction of the traffic through a {@link FaultProxy}: faults such as latency and blackholes
 * can apply to one direction only.
 */
public enum Direction {
    /** Bytes the client sends towards the target (for Redis: the commands). */
    CLIENT_TO_TARGET,
    /** Bytes the target sends back towards the client (for Redis: the replies and pub/sub messages). */
    TARGET_TO_CLIENT;

    /** A short lower-case name for thread names and descriptions: {@code to-target} or {@code to-client}. */
    String shortName() {
        return this == CLIENT_TO_TARGET ? "to-target" : "to-client";
    }
}
