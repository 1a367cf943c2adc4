package io.leasehold.lock.safety;

/** The Redis client a worker locks with; every scenario runs once per driver. */
public enum Driver {
    LETTUCE,
    JEDIS;

    /** The name in the results table. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
