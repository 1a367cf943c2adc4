package io.leasehold.lock.spring.boot;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockClientDiagnostics;
import io.leasehold.lock.LockOptions;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * The auto-configured {@link LockClient} bean: a Leasehold client, made when the bean is, closed when the
 * context stops, and made anew if the context starts again (a stop and start, or a CRaC checkpoint and
 * restore). It stops in a lifecycle phase of its own ({@link #PHASE}): after the web server (whose
 * graceful shutdown lets the requests that hold locks finish) and before the Redis connection factory
 * (phase 0), which shuts its client down when it stops; closed any later, the client could no longer
 * release its leases, and they would stay in Redis until their lease time ran out.
 *
 * <p>Every call goes to the client of the moment; while the context is stopped, {@link #lock} and
 * {@link #fairLock} throw {@code IllegalStateException}. A {@link DistributedLock} handle belongs to the
 * client that made it: ask for a new one after a restart (handles are cheap). Threadsafe: the client of
 * the moment is guarded by {@code this}.
 */
final class LeaseholdLockClient implements LockClient, SmartLifecycle {

    /** Below the web server's phases (DEFAULT_PHASE - 1024 and - 2048), above the connection factory's 0. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final Supplier<LockClient> make;
    /** The client of the moment; null while the context is stopped. */
    private @Nullable LockClient current;
    /** The latest client made (the current one, or the one the last stop closed): for its state. */
    private LockClient latest;

    private boolean running;
    private boolean closed;

    LeaseholdLockClient(Supplier<LockClient> make) {
        this.make = make;
        this.latest = make.get();
        this.current = latest;
    }

    @Override
    public DistributedLock lock(String name) {
        return client().lock(name);
    }

    @Override
    public DistributedLock lock(String name, LockOptions options) {
        return client().lock(name, options);
    }

    @Override
    public DistributedLock fairLock(String name) {
        return client().fairLock(name);
    }

    @Override
    public DistributedLock fairLock(String name, LockOptions options) {
        return client().fairLock(name, options);
    }

    @Override
    public synchronized LockOptions defaultOptions() {
        return latest.defaultOptions();
    }

    @Override
    public synchronized boolean isClosed() {
        return current == null || current.isClosed();
    }

    @Override
    public synchronized LockClientDiagnostics diagnostics() {
        return latest.diagnostics();
    }

    /** Closes the client for good (the context is closed). */
    @Override
    public void close() {
        closeCurrent(true);
    }

    @Override
    public void start() {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the Leasehold lock client was closed with its context");
            }
            if (current == null) {
                latest = make.get();
                current = latest;
            }
            running = true;
        }
    }

    /** Closes the client of the moment: its leases are released while Redis can still be reached. */
    @Override
    public void stop() {
        closeCurrent(false);
    }

    /**
     * Closes the client of the moment, if any, outside the monitor (a close may take up to its close
     * timeout); for good when {@code forGood} (the context is closed), else until the next start.
     */
    private void closeCurrent(boolean forGood) {
        LockClient closing;
        synchronized (this) {
            closed |= forGood;
            running = false;
            closing = current;
            current = null;
        }
        if (closing != null) {
            closing.close();
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    private synchronized LockClient client() {
        if (current == null) {
            throw new IllegalStateException(
                    closed
                            ? "the Leasehold lock client was closed with its context"
                            : "the Leasehold lock client is stopped with its context; it starts again with the context");
        }
        return current;
    }

    @Override
    public synchronized String toString() {
        return "LeaseholdLockClient[" + (current == null ? "stopped" : current) + "]";
    }
}
