package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An attack (helper-61), end to end: callLocked on a lease on exactly a majority (members 1, 2, 4
 * of five; 0 and 3 hold another owner's value); member 4's reply to the release is lost. The engine resends
 * the transiently unconfirmed release and the resend confirms it: callLocked returns the body's value, no
 * theft, and close() returns.
 */
class QuorumReleaseLostReplyEndToEndAttackTest {

    private static final String NAME = "orders:e2e-lost-reply";
    private static final String OTHER = "fedcba9876543210fedcba9876543210";

    private final Members members = new Members(5);

    @AfterEach
    void close() {
        members.close();
    }

    @Test
    void shouldReturnTheBodysValueWhenTheReleaseReplyOfAMemberOfAnExactMajorityIsLost() throws Exception {
        members.inUse();
        QuorumBackend quorum = members.quorum();
        LockClient client = LockClient.create(quorum);
        try {
            members.store(0).makeUnavailable();
            members.store(3).makeUnavailable();
            String value = client.lock(
                            NAME,
                            LockOptions.builder()
                                    .leaseTime(Duration.ofSeconds(20))
                                    .build())
                    .callLocked(Duration.ofSeconds(10), () -> {
                        members.store(0).makeAvailable();
                        members.store(3).makeAvailable();
                        for (int i : new int[] {0, 3}) {
                            members.store(i).writeKey(Members.lockKey(NAME), OTHER + ":4");
                        }
                        for (int i : new int[] {1, 2, 4}) {
                            assertTrue(members.store(i).exists(Members.lockKey(NAME)), "lease on member " + i);
                        }
                        members.store(4).loseNextReply();
                        return "done";
                    });
            assertEquals("done", value);
            assertTrue(!members.store(4).exists(Members.lockKey(NAME)), "released on member 4");
            CompletableFuture.runAsync(client::close).get(15, TimeUnit.SECONDS);
        } finally {
            client.close();
            quorum.close();
        }
    }
}
