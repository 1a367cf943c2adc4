package io.leasehold.bench;

/**
 * A lock implementation under measurement, set up as {@code clients} application nodes would use it
 * (each client with its own connections). Workers are made per thread; a worker holds at most one
 * lock at a time.
 */
interface Contender extends AutoCloseable {

    /** The row label, e.g. {@code Leasehold-Lettuce}. */
    String name();

    /** A worker for one thread, locking through client {@code client} (0-based, below the client count). */
    Worker worker(int client);

    /** Whether it hands the lock out first in, first out across clients (measured only where that matters: contended, several clients). */
    default boolean fair() {
        return false;
    }

    /** Whether it waits for a held lock (the raw baseline only tries once, so it is not run contended). */
    default boolean waits() {
        return true;
    }

    /**
     * Ends client {@code client} as a killed process would: its connections go at once and nothing
     * more of it reaches Redis (no clean-up); for the dead-waiter row, fair contenders only.
     */
    default void kill(int client) {
        throw new UnsupportedOperationException(name() + " cannot kill a client");
    }

    /** How many waiters the fair queue of lock {@code key} holds in Redis now; fair contenders only. */
    default long queued(RedisProbe redis, String key) {
        throw new UnsupportedOperationException(name() + " has no wait queue in Redis");
    }

    /**
     * Where the fair queue of lock {@code key} lives in Redis, for the {@link FifoAudit} of a
     * contended run; null where the audit cannot read it (a lock that is not fair, or a layout the
     * audit does not know: Redisson's {@code RFairLock} is not audited).
     */
    default FifoAudit.Keys fifoKeys(String key) {
        return null;
    }

    @Override
    void close();

    /** One thread's handle: blocking acquire of {@code key}, then release of what it holds. */
    interface Worker {
        void acquire(String key) throws Exception;

        /** Tries once; false if the key is held. */
        boolean tryAcquire(String key) throws Exception;

        void release() throws Exception;
    }
}
