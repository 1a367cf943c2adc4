package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.InMemoryFixture;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A member that lost its data (a restart without persistence) must not take part in a grant until every
 * lease it may have granted has run out (Redlock's delayed restart), and comes back with a floor that
 * keeps the tokens rising (docs/design/quorum-locks.md, "A node that lost its data").
 */
class QuorumRestartTest {

    private static final String NAME = "orders:77";
    private static final long LEASE_MS = 2_000;
    private static final Duration MAX_LEASE = Duration.ofMillis(LEASE_MS);

    private final Members members = new Members(3);

    @AfterEach
    void close() {
        members.close();
    }

    private QuorumBackend quorum() {
        return QuorumBackend.builder(members.fixtures.stream()
                        .map(InMemoryFixture::newBackend)
                        .toList())
                .maxLeaseTime(MAX_LEASE)
                .build();
    }

    private static Object acquire(QuorumBackend quorum, String owner) {
        try {
            return quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(owner, LEASE_MS, "1"))
                    .join();
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    private static boolean granted(Object reply) {
        return reply instanceof List && Long.valueOf(1).equals(((List<?>) reply).get(0));
    }

    @Test
    void shouldNotGrantASecondHolderWhileAMemberOfTheHoldersMajorityThatLostItsDataSitsOut() {
        try (QuorumBackend a = quorum();
                QuorumBackend b = quorum()) {
            // Given a lease held on exactly two members of three (member 2's copy is gone)
            Object first = acquire(a, "a");
            assertTrue(granted(first), "a is granted: " + first);
            long firstToken = (Long) ((List<?>) first).get(1);
            members.store(2).deleteKey(Members.lockKey(NAME));
            // When member 0, one of the two, restarts without persistence
            members.store(0).restartWithoutPersistence();

            // Then b is not granted, though members 0 and 2 both grant its first phase
            Object second = acquire(b, "b");
            assertTrue(!granted(second), "no second holder while a's lease may still be valid: " + second);
            assertEquals(Optional.of("a:" + firstToken), members.store(1).get(Members.lockKey(NAME)));
            // and member 0 sits out (once it was found without a record twice, the first time a moment's grace)
            AtomicReference<Object> later = new AtomicReference<>();
            Members.await("member 0 sits out after its reset", () -> {
                later.set(acquire(b, "b"));
                return standing(0) == 2;
            });
            assertTrue(!granted(later.get()), "still no second holder: " + later.get());

            // And once a's lease has run out, b is granted with a larger token (by members 1 and 2, or with
            // member 0 once its delay is over and it was seeded with the others' floor)
            Members.await("b is granted once a's lease has run out", () -> {
                later.set(acquire(b, "b"));
                return granted(later.get());
            });
            long secondToken = (Long) ((List<?>) later.get()).get(1);
            assertTrue(secondToken > firstToken, secondToken + " > " + firstToken);
        }
    }

    @Test
    void shouldRaiseTheFloorOfAMemberThatLostItsDataBeforeItTakesPartAgain() {
        try (QuorumBackend a = quorum()) {
            Object first = acquire(a, "a");
            assertTrue(granted(first), "a is granted: " + first);
            long firstToken = (Long) ((List<?>) first).get(1);
            a.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs("a"))
                    .join();

            members.store(1).restartWithoutPersistence();
            Members.await("member 1 takes part again", () -> {
                acquireAndRelease(a);
                return standing(1) == 4;
            });

            long floor = Long.parseLong(members.store(1)
                    .hashField(LockKeys.quorumRecordKey(Members.PREFIX), "floor")
                    .orElseThrow());
            assertTrue(
                    floor >= firstToken,
                    "its floor " + floor + " is at least the token committed before it lost its" + " data, "
                            + firstToken);
        }
    }

    private static void acquireAndRelease(QuorumBackend quorum) {
        Object reply = acquire(quorum, "c");
        if (granted(reply)) {
            quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs("c"))
                    .join();
        }
    }

    @Test
    void shouldRefuseALeaseLongerThanTheLargestLeaseNamingTheLimitAndTheLock() {
        try (QuorumBackend a = quorum()) {
            Throwable refused = assertThrows(
                            CompletionException.class,
                            () -> a.eval(
                                            Members.ACQUIRE,
                                            Members.acquireKeys(NAME),
                                            Members.acquireArgs("a", LEASE_MS + 1, "1"))
                                    .join())
                    .getCause();

            assertInstanceOf(IllegalArgumentException.class, refused);
            assertEquals(
                    "leaseTime must be at most the quorum's maxLeaseTime PT2S (a member that lost its data sits out"
                            + " that long before it grants again), but was PT2.001S (lock '" + NAME + "')",
                    refused.getMessage());
            assertEquals(Optional.empty(), members.store(0).get(Members.lockKey(NAME)), "nothing asked");
        }
    }

    @Test
    void shouldRefuseAClientWhoseLargestLeaseDiffersFromTheQuorumsNamingBothAndLeaveNothingBehind() {
        try (QuorumBackend a = quorum();
                QuorumBackend other = QuorumBackend.of(members.fixtures.stream()
                        .map(InMemoryFixture::newBackend)
                        .toList())) {
            Object first = acquire(a, "a"); // the quorum is made with a's largest lease, 2 s
            a.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs("a"))
                    .join();

            Object refused = acquire(other, "b"); // a client of the default, 5 minutes

            assertTrue(granted(first), "a is granted: " + first);
            IllegalStateException e = assertInstanceOf(IllegalStateException.class, refused);
            assertTrue(
                    e.getMessage().contains("this client's maxLeaseTime is PT5M, but member")
                            && e.getMessage().contains("holds PT2S (lock '" + Members.lockKey(NAME) + "')"),
                    e.getMessage());
            for (int i = 0; i < 3; i++) {
                int member = i;
                Members.await(
                        "nothing left on member " + i,
                        () -> !members.store(member).exists(Members.lockKey(NAME)));
            }
        }
    }

    /** Member {@code i}'s standing by quorum-enlist.lua's probe: 2 sitting out, 4 taking part. */
    private long standing(int i) {
        List<?> reply = (List<?>) members.store(i)
                .eval(Members.ENLIST, List.of(LockKeys.quorumRecordKey(Members.PREFIX)), List.of("probe", ""))
                .join();
        return (Long) reply.get(0);
    }
}
