package io.leasehold.lock.testkit.faults;

/**
 * What a silenced direction of a {@link FaultProxy} (a partition or a blackhole) does with the bytes
 * that arrive meanwhile. Either way the connections stay open and the peers see silence, not an
 * error.
 */
public enum Silence {
    /**
     * Keep the bytes, in order, and deliver them when the fault ends: what TCP does when a partition
     * heals before the connection times out (the sender retransmits). A Redis client then gets late
     * replies to commands it may have given up on. While held, the proxy stops reading once its
     * buffer for the connection is full (a few MB), so a sender that keeps writing blocks, as TCP
     * flow control would make it.
     */
    HOLD,
    /**
     * Discard the bytes. A connection that lost bytes no longer carries a whole stream (a Redis
     * client would match replies to the wrong commands), so when the fault ends the proxy resets
     * every connection that lost any: what happens to a TCP connection whose retransmissions ran
     * out during a long partition. Commands discarded this way never reach the target.
     */
    DROP
}
