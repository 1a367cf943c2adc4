package io.leasehold.lock.spring.boot;

import io.leasehold.lock.LockClient;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the auto-configured {@link LockClient} when the context stops, in a lifecycle phase of its own:
 * after the web server (whose graceful shutdown lets the requests that hold locks finish) and before the
 * Redis connection factory (phase 0), which shuts its client down when it stops, before any bean is
 * destroyed. Closed any later, the client could no longer release its leases: they would stay in Redis
 * until their lease time ran out.
 */
final class LockClientLifecycle implements SmartLifecycle {

    /** Below the web server's phases (DEFAULT_PHASE - 1024 and - 2048), above the connection factory's 0. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final LockClient client;
    private volatile boolean running;

    LockClientLifecycle(LockClient client) {
        this.client = client;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        client.close();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
