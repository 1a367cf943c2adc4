package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An attack (helper-61), end to end: LockClient.close() while an acquisition (60 s lease) waits
 * for the fresh enlistment after a -2 commit answer behind a silent member. close() and the acquisition
 * must both end soon, not at a quarter of the lease (15 s).
 */
class QuorumEnlistAnewClientCloseAttackTest {

    private static final String NAME = "orders:enlist-anew-close";
    private static final long LEASE_MS = 60_000;

    private final RecordLostSlowAndSilentMembers geometry = new RecordLostSlowAndSilentMembers(LEASE_MS);

    @AfterEach
    void close() {
        geometry.close();
    }

    @Test
    void shouldEndAnAcquisitionWaitingForAFreshEnlistmentSoonAfterTheClientCloses() throws Exception {
        QuorumBackend quorum = geometry.quorum();
        LockClient client = LockClient.create(quorum);
        LockOptions options =
                LockOptions.builder().leaseTime(Duration.ofMillis(LEASE_MS)).build();
        client.lock("orders:warm", options).acquire(Duration.ofSeconds(10)).release();
        geometry.breakMembers(Duration.ofMillis(2_500));

        CompletableFuture<Object> acquisition =
                CompletableFuture.supplyAsync(() -> client.lock(NAME, options).acquire(Duration.ofSeconds(40)));
        try {
            acquisition.get(4, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // answered or waiting: close now either way
        }
        long closedAt = System.nanoTime();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(client::close);
        for (CompletableFuture<?> f : List.of(closing, acquisition)) {
            try {
                f.get(6, TimeUnit.SECONDS);
            } catch (ExecutionException answered) {
                // an answer
            } catch (TimeoutException e) {
                fail((f == closing ? "close()" : "the acquisition") + " still waits "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt)
                        + " ms after LockClient.close() (member 4 silent, 60 s lease)");
            }
        }
        assertTrue(closing.isDone());
        quorum.close();
    }
}
