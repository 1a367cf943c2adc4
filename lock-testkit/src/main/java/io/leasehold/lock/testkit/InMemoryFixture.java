package io.leasehold.lock.testkit;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockBackend;
import java.time.Clock;
import java.time.Duration;

/**
 * A {@link LockBackendFixture} over one shared {@link InMemoryLockBackend}: every
 * {@link #newBackend()} is a {@link InMemoryLockBackend#newNode() node} of the same store, and
 * every fault is injected natively, so {@link #unsupportedFaults()} is empty.
 *
 * <pre>{@code
 * class InMemoryConformanceTest extends LockConformanceSuite {
 *     protected LockBackendFixture createFixture() {
 *         return new InMemoryFixture();
 *     }
 * }
 * }</pre>
 *
 * <p>This class is threadsafe.
 */
public final class InMemoryFixture implements LockBackendFixture {

    private final InMemoryLockBackend store;

    /** A fixture over a new store on the system clock. */
    public InMemoryFixture() {
        this(new InMemoryLockBackend());
    }

    /** A fixture over a new store on {@code clock}, e.g. a {@link ManualClock}. */
    public InMemoryFixture(Clock clock) {
        this(InMemoryLockBackend.withClock(clock));
    }

    private InMemoryFixture(InMemoryLockBackend store) {
        this.store = store;
    }

    /** The shared store, for its data helpers and switches beyond this interface. */
    public InMemoryLockBackend backend() {
        return store;
    }

    @Override
    public String name() {
        return "in-memory";
    }

    /** A new node on the shared store; closing it drops only its own subscriptions. */
    @Override
    public LockBackend newBackend() {
        return store.newNode();
    }

    @Override
    public long pttl(String key) {
        return store.pttl(key);
    }

    @Override
    public void deleteKey(String key) {
        store.deleteKey(key);
    }

    @Override
    public void expireNow(String key) {
        store.expireNow(key);
    }

    @Override
    public void flushAll() {
        store.flushAll();
    }

    @Override
    public void writeKey(String key, String value) {
        store.writeKey(key, value);
    }

    @Override
    public void writeForeignKey(String key) {
        store.writeForeignKey(key);
    }

    @Override
    public void writeSortedSetMember(String key, double score, String member) {
        store.writeSortedSetMember(key, score, member);
    }

    @Override
    public void makeUnavailable() {
        store.makeUnavailable();
    }

    @Override
    public void makeAvailable() {
        store.makeAvailable();
    }

    @Override
    public void freeze() {
        store.freeze();
    }

    @Override
    public void thaw() {
        store.thaw();
    }

    @Override
    public void loseNextReply() {
        store.loseNextReply();
    }

    @Override
    public void setLatency(Duration latency) {
        store.setLatency(latency);
    }

    @Override
    public void setSubscribeLatency(Duration latency) {
        store.setSubscribeLatency(latency);
    }

    @Override
    public void resetFaults() {
        store.resetFaults();
    }

    /** Closes the store, its nodes and its threads. */
    @Override
    public void close() {
        store.close();
    }

    @Override
    public String toString() {
        return "InMemoryFixture[" + store + "]";
    }
}
