package io.leasehold.lock.quorum;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.InMemoryFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Test help: three in-memory members, each its own store, and the engine's calls as it sends them. */
final class Members implements AutoCloseable {

    static final String PREFIX = "leasehold:";
    static final LuaScript ACQUIRE = LuaScript.bundled(ScriptNames.ACQUIRE);
    static final LuaScript RELEASE = LuaScript.bundled(ScriptNames.RELEASE);
    static final LuaScript RENEW = LuaScript.bundled(ScriptNames.RENEW);
    static final LuaScript EXTEND = LuaScript.bundled(ScriptNames.EXTEND);
    static final LuaScript INSPECT = LuaScript.bundled(ScriptNames.INSPECT);
    static final LuaScript FORCE_RELEASE = LuaScript.bundled(ScriptNames.FORCE_RELEASE);
    static final LuaScript HANDOFF = LuaScript.bundled(ScriptNames.HANDOFF);
    static final LuaScript ENLIST = LuaScript.bundled(ScriptNames.QUORUM_ENLIST);

    final List<InMemoryFixture> fixtures = new ArrayList<>();

    Members(int size) {
        for (int i = 0; i < size; i++) {
            fixtures.add(new InMemoryFixture());
        }
    }

    /** Member {@code i}'s store. */
    InMemoryLockBackend store(int i) {
        return fixtures.get(i).backend();
    }

    /**
     * Gives member {@code i} the quorum record of a member taking part, with {@code floor} (the largest
     * token committed on it), as a quorum in use has (quorum-enlist.lua's join).
     */
    void takingPart(int i, long floor) {
        String largestLease = Long.toString(QuorumBackend.DEFAULT_MAX_LEASE_TIME.toMillis());
        List<String> record = List.of(LockKeys.quorumRecordKey(PREFIX));
        String run = (String)
                ((List<?>) store(i).eval(ENLIST, record, List.of("probe", "")).join()).get(4);
        store(i).eval(ENLIST, record, List.of("join", Long.toString(floor), largestLease, run))
                .join();
    }

    /** Gives every member the record of a member taking part (floor 0): a quorum in use, not a new one. */
    void inUse() {
        for (int i = 0; i < fixtures.size(); i++) {
            takingPart(i, 0);
        }
    }

    /** A quorum of one new node of each member. */
    QuorumBackend quorum() {
        return QuorumBackend.of(
                fixtures.stream().map(InMemoryFixture::newBackend).toList());
    }

    static String lockKey(String name) {
        return LockKeys.lockKey(PREFIX, name);
    }

    static List<String> acquireKeys(String name) {
        return List.of(
                lockKey(name),
                LockKeys.fenceKey(PREFIX, name),
                LockKeys.queueKey(PREFIX, name),
                LockKeys.waitersKey(PREFIX, name),
                LockKeys.releaseChannel(PREFIX, name));
    }

    static List<String> acquireArgs(String owner, long leaseMs, String placeMode) {
        return List.of(owner, Long.toString(leaseMs), "86400000", "3000", "PUBLISH", placeMode);
    }

    static List<String> releaseKeys(String name) {
        List<String> keys = new ArrayList<>(acquireKeys(name));
        keys.add(LockKeys.yieldMarkerKey(PREFIX, name));
        return keys;
    }

    static List<String> releaseArgs(String owner) {
        return List.of(owner, "86400000", "3000", "PUBLISH", "30000");
    }

    /** The owner in a lock's value ({@code <owner>:<token>[:<seq>]}): its part before the first ':'. */
    static String ownerOf(Object value) {
        String v = String.valueOf(value);
        int sep = v.indexOf(':');
        return sep < 0 ? v : v.substring(0, sep);
    }

    /**
     * Waits until {@code nanoTime} ({@link System#nanoTime()}): for a test that must let a bounded process
     * (a spread's tries, a hold) run out before asserting that it left nothing behind.
     */
    static void sleepUntil(long nanoTime) throws InterruptedException {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(20)));
        }
    }

    /** Waits (polling, up to 10 s) until {@code condition} holds; fails naming {@code what} if it never does. */
    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(
                    Duration.ofMillis(5).toNanos());
        }
    }

    /** Closes every member's store. */
    @Override
    public void close() {
        fixtures.forEach(InMemoryFixture::close);
    }

    /** Every member's backend. */
    static List<LockBackend> backends(Members members) {
        return members.fixtures.stream().map(InMemoryFixture::newBackend).toList();
    }
}
