package io.leasehold.lock.testkit;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** quorum-fair-acquire.lua's contract on the in-memory emulation, on a hand-moved clock. */
class InMemoryQuorumFairAcquireScriptContractTest extends QuorumFairAcquireScriptContractTestBase {

    private final ManualClock clock = new ManualClock();

    @Override
    protected LockBackendFixture createFixture() {
        return new InMemoryFixture(clock);
    }

    private InMemoryLockBackend store() {
        return ((InMemoryFixture) fixture).backend();
    }

    @Override
    protected long pttl(String key) {
        return store().pttl(key);
    }

    @Override
    protected Optional<String> get(String key) {
        return store().get(key);
    }

    @Override
    protected Map<String, Double> sortedSet(String key) {
        return store().sortedSetScores(key);
    }

    @Override
    protected void passTime(Duration duration) {
        clock.advance(duration);
    }
}
