package io.leasehold.lock;

/**
 * The engine's time source: a monotonic nanosecond reading with an arbitrary origin, like
 * {@link System#nanoTime()}, which is the default. Every deadline the engine keeps (lease validity,
 * waits, command timeouts, renewal) is measured on it.
 *
 * <p>Tests set one that they move by hand (lock-inmemory's {@code ManualClock} is one), so that a
 * lease runs out when the test says, without waiting; see
 * {@link LockClient.Builder#ticker(Ticker)}. Implementations must be threadsafe and must never go
 * backwards.
 */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds since an arbitrary, fixed origin; never decreases. */
    long read();

    /** The default: {@link System#nanoTime()}. */
    static Ticker systemTicker() {
        return SystemTicker.INSTANCE;
    }
}

/** {@link System#nanoTime()}, as one recognisable instance so that the engine can tell it apart. */
final class SystemTicker implements Ticker {

    static final SystemTicker INSTANCE = new SystemTicker();

    private SystemTicker() {}

    @Override
    public long read() {
        return System.nanoTime();
    }

    @Override
    public String toString() {
        return "Ticker.systemTicker()";
    }
}
