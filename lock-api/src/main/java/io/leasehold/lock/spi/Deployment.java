package io.leasehold.lock.spi;

/**
 * How the Redis servers behind a {@link LockBackend} are deployed, as far as the backend can tell from
 * how it was built: what a composing backend (a quorum, whose members must each be one independent
 * master) checks its members against.
 */
public enum Deployment {
    /** One Redis server at a fixed address. */
    STANDALONE,
    /**
     * A master found through Redis Sentinel: on a failover a replica, which may lag behind the master,
     * becomes the master.
     */
    SENTINEL,
    /** A Redis Cluster: the keys spread over several masters by hash slot, each with its own failover. */
    CLUSTER,
    /** Several independent masters whose grants are composed (see {@link LockBackend#grantsAreComposed()}). */
    QUORUM,
    /**
     * Not known: a backend that does not say, a wrapper around one, or a client whose own default
     * address the backend cannot read.
     */
    UNKNOWN
}
