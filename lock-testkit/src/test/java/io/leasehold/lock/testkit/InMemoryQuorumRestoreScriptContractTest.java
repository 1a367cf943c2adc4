package io.leasehold.lock.testkit;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import java.util.Optional;

/** quorum-restore.lua's contract on the in-memory emulation. */
class InMemoryQuorumRestoreScriptContractTest extends QuorumRestoreScriptContractTestBase {

    @Override
    protected LockBackendFixture createFixture() {
        return new InMemoryFixture(new ManualClock());
    }

    private InMemoryLockBackend store() {
        return ((InMemoryFixture) fixture).backend();
    }

    @Override
    protected Optional<String> get(String key) {
        return store().get(key);
    }

    @Override
    protected Optional<String> hashField(String key, String field) {
        return store().hashField(key, field);
    }

    @Override
    protected void writeHashField(String key, String field, String value) {
        store().writeHashField(key, field, value);
    }
}
