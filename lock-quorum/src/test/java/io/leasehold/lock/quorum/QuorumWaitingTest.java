package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * How a waiter waits on a quorum: on the holder's release message, not by asking again and again.
 */
class QuorumWaitingTest {

    private static final String NAME = "orders:1";

    /**
     * A lease held on exactly a majority (granted while a member was down, or a member restarted empty):
     * every ask of a waiter is granted on the member without the lease and answered contended, and the
     * clean-up of that grant must not publish: the waiter would hear it as a release racing its ask and
     * ask again at once, for as long as the lease lasts.
     */
    @Test
    void shouldWaitQuietlyWhileTheLeaseIsHeldOnExactlyAMajority() throws Exception {
        try (Members members = new Members(3)) {
            members.inUse();
            members.fixtures.get(2).makeUnavailable();
            try (LockClient holder = LockClient.create(members.quorum())) {
                Lease lease = holder.lock(NAME).acquire(Duration.ofSeconds(5)); // committed on members 0 and 1
                members.fixtures.get(2).makeAvailable();
                CountingLockBackend third =
                        new CountingLockBackend(members.fixtures.get(2).newBackend());
                try (LockClient waiter = LockClient.create(QuorumBackend.of(
                        members.fixtures.get(0).newBackend(),
                        members.fixtures.get(1).newBackend(),
                        third))) {
                    assertThrows(
                            LockTimeoutException.class, () -> waiter.lock(NAME).acquire(Duration.ofSeconds(1)));
                }
                long asks = third.count(ScriptNames.ACQUIRE);
                assertTrue(asks <= 10, "a waiter of 1 s asked the member without the lease " + asks + " times");
                lease.release();
            }
        }
    }
}
