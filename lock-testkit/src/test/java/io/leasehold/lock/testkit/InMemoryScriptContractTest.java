package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** The script contract on the in-memory emulation, on the system clock as a real server would be. */
class InMemoryScriptContractTest extends ScriptContractTestBase {

    @Override
    protected LockBackendFixture createFixture() {
        return new InMemoryFixture();
    }

    private InMemoryLockBackend store() {
        return ((InMemoryFixture) fixture).backend();
    }

    @Override
    protected long pttl(String key) {
        return store().pttl(key);
    }

    @Override
    protected long serverTimeMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, store().clock().instant());
    }

    /** Like a server whose clock stands still during a script (Redis 7.2, 7.3), the emulation cannot tell: 0. */
    @Override
    protected void assertRunTimeTold(long micros) {
        assertEquals(0L, micros, "the emulation tells no run time");
    }
}
