package io.leasehold.lock.testkit;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import java.util.Optional;

/** quorum-enlist.lua's contract on the in-memory emulation. */
class InMemoryQuorumEnlistScriptContractTest extends QuorumEnlistScriptContractTestBase {

    @Override
    protected LockBackendFixture createFixture() {
        return new InMemoryFixture(new ManualClock());
    }

    private InMemoryLockBackend store() {
        return ((InMemoryFixture) fixture).backend();
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
