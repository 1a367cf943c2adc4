package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockKeys;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The geometry of the fresh-enlistment attacks: five in-memory members, then member 0 loses its quorum
 * record (its commit answers -2), member 3 is slowed past phase 1's patience (its grant comes late), and
 * member 4 freezes (a blackholed server). Members 1, 2 and 3 still take part: a majority.
 */
final class RecordLostSlowAndSilentMembers implements AutoCloseable {

    private static final String RECORD = LockKeys.quorumRecordKey(Members.PREFIX);

    final Members members = new Members(5);
    private final long leaseMs;

    RecordLostSlowAndSilentMembers(long leaseMs) {
        this.leaseMs = leaseMs;
    }

    /** A quorum over the members whose largest lease is this geometry's lease. */
    QuorumBackend quorum() {
        return QuorumBackend.builder(Members.backends(members))
                .maxLeaseTime(Duration.ofMillis(leaseMs))
                .build();
    }

    /** acquire.lua of lock {@code name} for {@code owner} over {@code quorum}, with this geometry's lease. */
    CompletableFuture<Object> acquire(QuorumBackend quorum, String name, String owner) {
        return quorum.eval(Members.ACQUIRE, Members.acquireKeys(name), Members.acquireArgs(owner, leaseMs, "1"));
    }

    static boolean granted(Object reply) {
        return reply instanceof List && Long.valueOf(1).equals(((List<?>) reply).get(0));
    }

    /**
     * A first acquisition of {@code warmUpName} (every member joins, so this client counts all five as
     * taking part), released; then the members break as the class doc says, member 3 by {@code slow}.
     */
    void warmUpThenBreak(QuorumBackend quorum, String warmUpName, Duration slow) throws Exception {
        Object warmUp = acquire(quorum, warmUpName, "warm-up").get(10, TimeUnit.SECONDS);
        assertTrue(granted(warmUp), () -> "every member joined: " + warmUp);
        quorum.eval(Members.RELEASE, Members.releaseKeys(warmUpName), Members.releaseArgs("warm-up"))
                .get(10, TimeUnit.SECONDS);
        breakMembers(slow);
    }

    /** Member 0 loses its record, member 3 answers {@code slow} late, member 4 freezes. */
    void breakMembers(Duration slow) {
        members.store(0).deleteKey(RECORD);
        members.store(3).setLatency(slow);
        members.store(4).freeze();
    }

    @Override
    public void close() {
        members.store(4).thaw();
        members.close();
    }
}
