package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.leasehold.lock.spi.LockKeys;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An attack (helper-61): the wait for the fresh enlistment after a -2 commit answer must not grow
 * with the lease (bounded by a quarter of the lease at first, it was 15 s for a 60 s lease; now at most
 * the longest patience, 1 s). Same geometry as QuorumEnlistAnewAttackTest
 * (member 0 lost its record, member 3 slower than phase 1's patience, member 4 silent), with a 60 s lease.
 */
class QuorumEnlistAnewLongLeaseAttackTest {

    private static final String NAME = "orders:enlist-anew-long";
    private static final long LEASE_MS = 60_000;
    private static final String RECORD = LockKeys.quorumRecordKey(Members.PREFIX);

    private final Members members = new Members(5);

    @AfterEach
    void close() {
        members.store(4).thaw();
        members.close();
    }

    private static CompletableFuture<Object> acquire(QuorumBackend quorum, String owner) {
        return quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(owner, LEASE_MS, "1"));
    }

    private static boolean granted(Object reply) {
        return reply instanceof List && Long.valueOf(1).equals(((List<?>) reply).get(0));
    }

    private QuorumBackend warmQuorumThenRecordLostOnZeroSlowThreeSilentFour() throws Exception {
        QuorumBackend quorum = QuorumBackend.builder(Members.backends(members))
                .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                .build();
        Object warmUp = acquire(quorum, "warm-up").get(10, TimeUnit.SECONDS);
        assertTrue(granted(warmUp), () -> "every member joined: " + warmUp);
        quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs("warm-up"))
                .get(10, TimeUnit.SECONDS);
        members.store(0).deleteKey(RECORD);
        members.store(3).setLatency(Duration.ofMillis(2_500));
        members.store(4).freeze();
        return quorum;
    }

    /** Members 1, 2, 3 take part: the acquisition must answer well before 8 s (as with a 2 s lease). */
    @Test
    void shouldAnswerBehindASilentMemberWithinEightSecondsWhateverTheLeaseLength() throws Exception {
        try (QuorumBackend quorum = warmQuorumThenRecordLostOnZeroSlowThreeSilentFour()) {
            long start = System.nanoTime();
            CompletableFuture<Object> acquisition = acquire(quorum, "a");
            try {
                acquisition.get(8, TimeUnit.SECONDS);
            } catch (ExecutionException answeredAsFailure) {
                // an answer
            } catch (TimeoutException e) {
                members.store(4).thaw();
                try {
                    acquisition.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException ignored) {
                    // reported below
                }
                fail("the acquisition hung behind the silent member's probe for "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
                        + " ms with a 60 s lease (members 1, 2, 3 take part)");
            }
        }
    }

    /** Closing the quorum ends an acquisition waiting for the fresh enlistment, whatever the lease length. */
    @Test
    void shouldEndAnAcquisitionWaitingForAFreshEnlistmentSoonAfterTheQuorumClosesWithALongLease() throws Exception {
        QuorumBackend quorum = warmQuorumThenRecordLostOnZeroSlowThreeSilentFour();
        CompletableFuture<Object> acquisition = acquire(quorum, "a");
        CompletableFuture<Object> second = acquire(quorum, "b");
        try {
            acquisition.get(4, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // answered or waiting: close now either way
        }
        long closedAt = System.nanoTime();
        quorum.close();
        for (CompletableFuture<Object> f : List.of(acquisition, second)) {
            try {
                f.get(5, TimeUnit.SECONDS);
            } catch (ExecutionException answered) {
                // failed as closed: an answer
            } catch (TimeoutException e) {
                fail("an acquisition still waits "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt)
                        + " ms after the quorum closed (member 4 still silent, 60 s lease)");
            }
        }
    }
}
