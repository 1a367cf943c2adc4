package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An attack (helper-61): many acquisitions find -2 at once (member 0 lost its record, member 3
 * slower than phase 1's patience, member 4 silent), all waiting for the same fresh enlistment and timing
 * out together. Every one must answer; a grant must hold on a majority; on one name at most one owner wins.
 */
class QuorumEnlistAnewConcurrentAttackTest {

    private final RecordLostSlowAndSilentMembers geometry = new RecordLostSlowAndSilentMembers(2_000);
    private final Members members = geometry.members;

    @AfterEach
    void close() {
        geometry.close();
    }

    private CompletableFuture<Object> acquire(QuorumBackend quorum, String name, String owner) {
        return geometry.acquire(quorum, name, owner);
    }

    private int holdingOnZeroToThree(String name, String owner) {
        int holding = 0;
        for (int i = 0; i < 4; i++) {
            Optional<String> value = members.store(i).get(Members.lockKey(name));
            if (value.isPresent() && value.get().startsWith(owner + ":")) {
                holding++;
            }
        }
        return holding;
    }

    @Test
    void shouldAnswerEveryConcurrentAcquisitionThatFindsAMemberNotTakingPartAndGrantOnlyOnAMajority() throws Exception {
        try (QuorumBackend quorum = geometry.quorum()) {
            geometry.warmUpThenBreak(quorum, "warm", Duration.ofMillis(600));

            List<String> names = new ArrayList<>();
            List<String> owners = new ArrayList<>();
            List<CompletableFuture<Object>> calls = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                names.add("orders:many-" + i);
                owners.add("owner-" + i);
            }
            for (int i = 0; i < 8; i++) {
                names.add("orders:same");
                owners.add("same-" + i);
            }
            for (int i = 0; i < names.size(); i++) {
                calls.add(acquire(quorum, names.get(i), owners.get(i)));
            }
            long start = System.nanoTime();
            int sameGranted = 0;
            for (int i = 0; i < calls.size(); i++) {
                Object reply;
                try {
                    long left = Math.max(1, 12_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                    reply = calls.get(i).get(left, TimeUnit.MILLISECONDS);
                } catch (ExecutionException answeredAsFailure) {
                    continue;
                } catch (TimeoutException hung) {
                    fail("acquisition " + i + " (" + names.get(i) + ") unanswered 12 s after the start");
                    return;
                }
                if (RecordLostSlowAndSilentMembers.granted(reply)) {
                    int holding = holdingOnZeroToThree(names.get(i), owners.get(i));
                    assertTrue(
                            holding >= 3,
                            "granted " + names.get(i) + " to " + owners.get(i) + " held on " + holding + " members");
                    if (names.get(i).equals("orders:same")) {
                        sameGranted++;
                    }
                }
            }
            assertTrue(sameGranted <= 1, "one name granted to " + sameGranted + " owners at once");
        }
    }
}
