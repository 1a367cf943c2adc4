package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertTrue;
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
 * A commit answered -2 waits for an enlistment that starts after the answer (attacked by helper-60). Five
 * in-memory members: member 0 lost its record (its commit answers -2), member 3 is slower than phase 1's
 * patience (its grant comes late, so only 0, 1 and 2 decide phase 1), and member 4 is silent (a
 * blackholed server: Lettuce keeps such a call until its command timeout). Members 1, 2, 3 take part: a
 * majority. The enlistment probes every member and waits for all of them, the silent one too.
 */
class QuorumEnlistAnewAttackTest {

    private static final String NAME = "orders:enlist-anew";
    private final RecordLostSlowAndSilentMembers geometry = new RecordLostSlowAndSilentMembers(2_000);
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
        geometry.warmUpThenBreak(quorum, NAME, Duration.ofMillis(600));
        return quorum;
    }

    /** Any answer (granted, refused, unavailable) is fine; hanging while a majority takes part is not. */
    @Test
    void shouldAnswerAnAcquisitionWhoseCommitFindsAMemberNotTakingPartWhileAnotherMemberIsSilent() throws Exception {
        try (QuorumBackend quorum = warmQuorumThenRecordLostOnZeroSlowThreeSilentFour()) {
            CompletableFuture<Object> acquisition = acquire(quorum, "a");
            boolean hung = false;
            try {
                acquisition.get(8, TimeUnit.SECONDS);
            } catch (ExecutionException answeredAsFailure) {
                // an answer
            } catch (TimeoutException e) {
                hung = true;
            }
            members.store(4).thaw();
            try {
                acquisition.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException answeredAsFailure) {
                // an answer
            } catch (TimeoutException e) {
                fail("the acquisition was lost: still unanswered 10 s after the silent member answered again");
            }
            assertTrue(
                    !hung, "the acquisition hung for 8 s behind the silent member's probe (members 1, 2, 3 take part)");
        }
    }

    /** Closing the quorum ends an acquisition waiting for a queued enlistment. */
    @Test
    void shouldEndAnAcquisitionWaitingForAnEnlistmentWhenTheQuorumCloses() throws Exception {
        QuorumBackend quorum = warmQuorumThenRecordLostOnZeroSlowThreeSilentFour();
        CompletableFuture<Object> acquisition = acquire(quorum, "a");
        CompletableFuture<Object> second = acquire(quorum, "b");
        try {
            acquisition.get(3, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // answered or waiting: close now either way
        }
        quorum.close();
        for (CompletableFuture<Object> f : List.of(acquisition, second)) {
            try {
                f.get(5, TimeUnit.SECONDS);
            } catch (ExecutionException answered) {
                // failed as closed: an answer
            } catch (TimeoutException e) {
                fail("an acquisition still waits 5 s after the quorum closed (member 4 still silent)");
            }
        }
    }
}
