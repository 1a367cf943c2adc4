package io.leasehold.lock.testkit;

import io.leasehold.lock.spi.LockBackend;
import java.time.Duration;
import java.util.Map;

/**
 * What the conformance suite needs from a backend under test: fresh backends (one per simulated
 * application node) on one shared store, an administrative path to that store, and fault
 * injection. A driver's test supplies one; the in-memory backend and the real-Redis fixtures
 * provide ready-made ones.
 *
 * <p>Faults apply to every backend this fixture made. A fixture that cannot inject a fault lists it
 * in {@link #unsupportedFaults()} with the reason; the suite then skips that scenario and reports
 * the reason, never silently.
 */
public interface LockBackendFixture extends AutoCloseable {

    /** A short name for reports, e.g. {@code in-memory} or {@code lettuce-cluster}. */
    String name();

    /** A new backend with its own connection(s) to the shared store; the caller closes it. */
    LockBackend newBackend();

    /**
     * {@code PTTL key} on the master that owns the key: the milliseconds left, -1 for a key without
     * a TTL, -2 for a missing key; for scenarios that check what is left in the store.
     */
    long pttl(String key);

    /** Deletes {@code key} behind every holder's back (an operator or a bug elsewhere). */
    void deleteKey(String key);

    /** Makes {@code key} expire now, as if its TTL had run out. */
    void expireNow(String key);

    /** Loses all data: every lock and every fencing counter (a flush or a restart without persistence). */
    void flushAll();

    /**
     * Sets {@code key} to {@code value} without a TTL ({@code SET key value} on the master that owns
     * the key), e.g. to roll a fencing counter back to an older token as a promoted replica that
     * missed the latest acquisitions would have it.
     */
    void writeKey(String key, String value);

    /**
     * Replaces {@code key} with a hash ({@code DEL}, then {@code HSET key field value}, atomically),
     * as a foreign application writing under the lock prefix would: a value that is not a Leasehold
     * lock, which no script may fail on as a whole.
     */
    void writeForeignKey(String key);

    /**
     * Adds {@code member} with {@code score} to the sorted set {@code key} ({@code ZADD key score member}
     * on the master that owns the key), as another application writing into a wait queue's keys
     * would, e.g. a member scored {@code +inf}, which is no deadline.
     */
    void writeSortedSetMember(String key, double score, String member);

    /** Makes the store unreachable for every backend of this fixture (calls fail or hang) until {@link #makeAvailable()}. */
    void makeUnavailable();

    /** Ends {@link #makeUnavailable()}. */
    void makeAvailable();

    /**
     * Freezes the store, as a {@code SIGSTOP}ped server: calls from every backend of this fixture are
     * neither run nor answered (they hang, unlike {@link #makeUnavailable()} on a fixture whose
     * unavailability fails fast) until {@link #thaw()}. A fixture that cannot lists
     * {@link Fault#FREEZE} in {@link #unsupportedFaults()}.
     */
    default void freeze() {
        throw new UnsupportedOperationException(
                name() + " cannot freeze its store: list Fault.FREEZE in unsupportedFaults()");
    }

    /** Ends {@link #freeze()}: the calls that waited are run and answered. */
    default void thaw() {
        throw new UnsupportedOperationException(
                name() + " cannot freeze its store: list Fault.FREEZE in unsupportedFaults()");
    }

    /** The next script call on any backend of this fixture executes in the store, but its reply never reaches the caller. */
    void loseNextReply();

    /** Delays every script call by {@code latency} before it executes; {@link Duration#ZERO} removes the delay. */
    void setLatency(Duration latency);

    /**
     * Makes every later {@code subscribe} of this fixture's backends slow to confirm: the
     * subscription is made at once (messages may arrive), but its future completes only after
     * {@code latency}, as with a slow subscribe confirmation. Never blocks the caller.
     * {@link Duration#ZERO} removes the delay; {@link #resetFaults()} does too.
     *
     * @throws IllegalArgumentException when {@code latency} is negative
     */
    void setSubscribeLatency(Duration latency);

    /** Clears every fault (called by the suite after each scenario). */
    void resetFaults();

    /** Faults this fixture cannot inject, each with the reason; empty when it supports them all. */
    default Map<Fault, String> unsupportedFaults() {
        return Map.of();
    }

    /** Stops whatever the fixture started. */
    @Override
    void close();

    /** The faults a fixture may inject. */
    enum Fault {
        /** {@link #deleteKey(String)}. */
        DELETE_KEY,
        /** {@link #expireNow(String)}. */
        EXPIRE_NOW,
        /** {@link #flushAll()}. */
        FLUSH_ALL,
        /** {@link #makeUnavailable()} and {@link #makeAvailable()}. */
        UNAVAILABLE,
        /** {@link #loseNextReply()}. */
        LOSE_REPLY,
        /** {@link #setLatency(Duration)}. */
        LATENCY,
        /** {@link #writeKey(String, String)}. */
        WRITE_KEY,
        /** {@link #writeForeignKey(String)}. */
        FOREIGN_KEY,
        /** {@link #setSubscribeLatency(Duration)}. */
        SUBSCRIBE_LATENCY,
        /** {@link #freeze()} and {@link #thaw()}. */
        FREEZE
    }
}
