package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.InMemoryFixture;
import io.leasehold.lock.testkit.LockBackendFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A {@link LockBackendFixture} over a quorum of members, each a fixture of its own (its own store: an
 * {@link InMemoryFixture}, or a real {@code redis-server} reached by a driver, see
 * {@link RedisMembers}): {@link #newBackend()} is a {@link QuorumBackend} of one new backend per member; data
 * helpers and faults act on every member; {@link #pttl} is the majority's view (the median of the
 * members' answers). {@link #loseNextReply()} loses the reply of the next call to the quorum (it runs on
 * every member, and its reply never reaches the caller), as the fault is defined for one store: losing
 * each member's next reply instead would lose replies of whichever fan-outs are under way at that moment
 * (a waiter's acquire still reaching the last members), not of the next call. A fault the quorum cannot
 * honestly support is listed in {@link #unsupportedFaults()} with the reason.
 *
 * <p>This class is threadsafe.
 */
final class QuorumFixture implements LockBackendFixture {

    private final String name;
    private final List<LockBackendFixture> members;
    /** Replies still to lose, of the next calls to any quorum of this fixture. */
    private final AtomicInteger repliesToLose = new AtomicInteger();

    QuorumFixture(int size) {
        this("quorum-of-" + size + "-in-memory", inMemory(size));
    }

    /** A quorum over {@code members}, which it owns (closes). */
    QuorumFixture(String name, List<? extends LockBackendFixture> members) {
        this.name = name;
        this.members = List.copyOf(members);
    }

    private static List<LockBackendFixture> inMemory(int size) {
        List<LockBackendFixture> made = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            made.add(new InMemoryFixture());
        }
        return made;
    }

    QuorumFixture() {
        this(3);
    }

    /** The members' fixtures, for scenarios that fault one member only. */
    List<LockBackendFixture> members() {
        return members;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockBackend newBackend() {
        return new ReplyLosing(QuorumBackend.of(
                members.stream().map(LockBackendFixture::newBackend).toList()));
    }

    /** A quorum whose next calls' replies are lost while {@link #repliesToLose} says so. */
    private final class ReplyLosing extends ForwardingLockBackend {
        ReplyLosing(LockBackend quorum) {
            super(quorum);
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            // decided before the call runs: what it publishes may wake another caller at once, whose call
            // is not the next one
            boolean lose = repliesToLose.getAndUpdate(n -> Math.max(n - 1, 0)) > 0;
            CompletableFuture<Object> call = delegate().eval(script, keys, args);
            return lose ? new CompletableFuture<>() : call; // a lost reply: it ran, its reply never comes
        }
    }

    /**
     * The majority's view: the median of the members' PTTLs (-2 missing, -1 no TTL). A fair lock's wait
     * queue ({@code <lock key>:queue} and {@code :waiters}, where a single master keeps it) is, on a
     * quorum, its members' quorum queue ({@code :quorum-queue} and {@code :quorum-waiters}, see
     * quorum-fair-acquire.lua): asked for the one, the fixture answers for the other, so that a scenario's
     * "the waiter is queued in Redis" asks where this backend queues it.
     */
    @Override
    public long pttl(String key) {
        String where = key.endsWith("}:queue")
                ? key.substring(0, key.length() - "queue".length()) + "quorum-queue"
                : key.endsWith("}:waiters")
                        ? key.substring(0, key.length() - "waiters".length()) + "quorum-waiters"
                        : key;
        long[] pttls = members.stream().mapToLong(m -> m.pttl(where)).toArray();
        Arrays.sort(pttls);
        return pttls[pttls.length / 2];
    }

    private void each(Consumer<LockBackendFixture> action) {
        members.forEach(action);
    }

    @Override
    public void deleteKey(String key) {
        each(m -> m.deleteKey(key));
    }

    @Override
    public void expireNow(String key) {
        each(m -> m.expireNow(key));
    }

    @Override
    public void flushAll() {
        each(LockBackendFixture::flushAll);
    }

    @Override
    public void writeKey(String key, String value) {
        each(m -> m.writeKey(key, value));
    }

    @Override
    public void writeForeignKey(String key) {
        each(m -> m.writeForeignKey(key));
    }

    @Override
    public void writeSortedSetMember(String key, double score, String member) {
        each(m -> m.writeSortedSetMember(key, score, member));
    }

    @Override
    public void makeUnavailable() {
        each(LockBackendFixture::makeUnavailable);
    }

    @Override
    public void makeAvailable() {
        each(LockBackendFixture::makeAvailable);
    }

    @Override
    public void freeze() {
        each(LockBackendFixture::freeze);
    }

    @Override
    public void thaw() {
        each(LockBackendFixture::thaw);
    }

    @Override
    public void loseNextReply() {
        repliesToLose.incrementAndGet();
    }

    @Override
    public void setLatency(Duration latency) {
        each(m -> m.setLatency(latency));
    }

    @Override
    public void setSubscribeLatency(Duration latency) {
        each(m -> m.setSubscribeLatency(latency));
    }

    @Override
    public void resetFaults() {
        repliesToLose.set(0);
        each(LockBackendFixture::resetFaults);
    }

    @Override
    public Map<Fault, String> unsupportedFaults() {
        Map<Fault, String> unsupported = new java.util.EnumMap<>(Fault.class);
        members.forEach(
                m -> m.unsupportedFaults().forEach(unsupported::putIfAbsent)); // a member's limits are the quorum's
        return unsupported;
    }

    @Override
    public void close() {
        each(LockBackendFixture::close);
    }

    @Override
    public String toString() {
        return name();
    }
}
