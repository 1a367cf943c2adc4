package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Review attacks on LockOptions.minHoldTime (commit 42aa454) over a quorum of three in-memory members,
 * whose largest lease is 5 minutes (the default).
 */
class QuorumMinHoldAttackTest {

    private static final String NAME = "jobs:nightly";

    private final Members members = new Members(3);

    @AfterEach
    void close() {
        members.close();
    }

    /** A hold shorter than the quorum's largest lease: kept on the members, then free. (Passes.) */
    @Test
    void shouldKeepAShortHoldOnTheMembers() throws Exception {
        members.inUse();
        try (QuorumBackend quorum = members.quorum();
                LockClient client = LockClient.create(quorum);
                QuorumBackend otherQuorum = members.quorum();
                LockClient other = LockClient.create(otherQuorum)) {
            // (3 s: long enough that a loaded machine reads the TTLs before the hold is up)
            LockOptions options =
                    LockOptions.builder().minHoldTime(Duration.ofSeconds(3)).build();
            long start = System.nanoTime();
            Lease lease = client.lock(NAME, options).acquire(Duration.ofSeconds(5));
            assertTrue(lease.release());
            assertEquals(LeaseState.RELEASED, lease.state());
            for (int i = 0; i < 3; i++) {
                long pttl = members.store(i).pttl(Members.lockKey(NAME));
                assertTrue(pttl > 0 && pttl <= 3_000, "member " + i + "'s TTL after the release: " + pttl);
            }
            assertEquals(Optional.empty(), other.lock(NAME).tryAcquire());
            Lease next = other.lock(NAME).acquire(Duration.ofSeconds(10));
            assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() >= 2_975);
            next.release();
        }
    }

    /**
     * A min-hold time longer than the quorum's largest lease (6 min > 5 min) could not be kept by the
     * release (the quorum caps every TTL it sets): the lock is refused when it is made, naming the rule.
     */
    @Test
    void shouldRefuseAMinHoldTimeLongerThanTheQuorumsLongestLeaseWhenTheLockIsMade() throws Exception {
        members.inUse();
        try (QuorumBackend quorum = members.quorum();
                LockClient client = LockClient.create(quorum)) {
            LockOptions options = LockOptions.builder()
                    .leaseTime(Duration.ofSeconds(30))
                    .minHoldTime(Duration.ofMinutes(6))
                    .build();
            IllegalArgumentException refused =
                    assertThrows(IllegalArgumentException.class, () -> client.lock(NAME, options));
            assertEquals(
                    "minHoldTime must be at most the backend's longest lease (PT5M), but was PT6M (lock '" + NAME
                            + "')",
                    refused.getMessage());
            assertEquals(-2L, members.store(0).pttl(Members.lockKey(NAME)), "nothing taken on member 0");
        }
    }
}
