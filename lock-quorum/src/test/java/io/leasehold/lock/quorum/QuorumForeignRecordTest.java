package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.InMemoryFixture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A member whose quorum record key holds a value Leasehold did not write (a string, say): it takes no part,
 * the error names the member, the key, what it holds and the lock, and on a new quorum the clean members
 * join at once instead of sitting out the restart delay (docs/design/quorum-locks.md, "Attack on the reset
 * detection", F5).
 */
class QuorumForeignRecordTest {

    private static final String NAME = "orders:42";
    private static final long LEASE_MS = 2_000;
    private static final String RECORD = LockKeys.quorumRecordKey(Members.PREFIX);

    private final Members members = new Members(3);

    @AfterEach
    void close() {
        members.close();
    }

    private QuorumBackend quorum() {
        return QuorumBackend.builder(members.fixtures.stream()
                        .map(InMemoryFixture::newBackend)
                        .toList())
                .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                .build();
    }

    private static Object acquire(QuorumBackend quorum) {
        try {
            return quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs("a", LEASE_MS, "1"))
                    .join();
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    @Test
    void shouldGrantOnANewQuorumWithTheCleanMembersWhenOneMembersRecordKeyHoldsAForeignValue() {
        members.store(2).writeKey(RECORD, "not a record");
        try (QuorumBackend a = quorum()) {
            Object reply = acquire(a);

            assertTrue(reply instanceof List && Long.valueOf(1).equals(((List<?>) reply).get(0)), "granted: " + reply);
            assertEquals(4L, standing(0), "member 0 joined at once");
            assertEquals(4L, standing(1), "member 1 joined at once");
        }
    }

    @Test
    void shouldNameTheMembersTheKeyWhatItHoldsAndTheLockWhenTwoMembersRecordKeysHoldForeignValues() {
        members.store(1).writeKey(RECORD, "not a record");
        members.store(2).writeKey(RECORD, "not a record either");
        try (QuorumBackend a = quorum()) {
            Object reply = acquire(a);

            QuorumUnavailableException e = assertInstanceOf(QuorumUnavailableException.class, reply);
            String message = e.getMessage();
            assertTrue(message.contains("lock '" + Members.lockKey(NAME) + "'"), message);
            assertTrue(message.contains("member 1 ("), message);
            assertTrue(message.contains("member 2 ("), message);
            assertTrue(
                    message.contains("key '" + RECORD + "' holds a value that is not a Leasehold quorum record"
                            + " (a string, not a hash)"),
                    message);
            assertTrue(!e.isTransient(), "a foreign value stays until someone removes it: " + message);
            assertEquals(4L, standing(0), "the clean member joined, not reset: " + message);
        }
    }

    /** Member {@code i}'s standing by quorum-enlist.lua's probe: 0 no record, 4 taking part. */
    private long standing(int i) {
        List<?> reply = (List<?>) members.store(i)
                .eval(Members.ENLIST, List.of(RECORD), List.of("probe", ""))
                .join();
        return (Long) reply.get(0);
    }
}
