package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.fail;

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
    private final RecordLostSlowAndSilentMembers geometry = new RecordLostSlowAndSilentMembers(60_000);
    private final Members members = geometry.members;

    @AfterEach
    void close() {
        geometry.close();
    }

    private CompletableFuture<Object> acquire(QuorumBackend quorum, String owner) {
        return geometry.acquire(quorum, NAME, owner);
    }

    private QuorumBackend warmQuorumThenRecordLostOnZeroSlowThreeSilentFour() throws Exception {
        QuorumBackend quorum = geometry.quorum();
        geometry.warmUpThenBreak(quorum, NAME, Duration.ofMillis(2_500));
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
