package io.leasehold.lock.testkit;

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
}
