package io.leasehold.lock.testkit;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;

/** A fresh in-memory store on a manual clock per test, with a caller for the bundled scripts. */
abstract class InMemoryScriptTestBase {

    protected final ManualClock clock;
    protected final InMemoryLockBackend redis;
    protected final ScriptCaller scripts;

    protected InMemoryScriptTestBase() {
        this(new ManualClock());
    }

    protected InMemoryScriptTestBase(Instant start) {
        this(new ManualClock(start));
    }

    private InMemoryScriptTestBase(ManualClock clock) {
        this.clock = clock;
        this.redis = InMemoryLockBackend.withClock(clock);
        this.scripts = new ScriptCaller(redis);
    }

    @AfterEach
    void closeBackend() {
        redis.close();
    }
}
