package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Phase 1 and phase 2 of an acquisition over three in-memory members (QuorumAcquire). */
class QuorumAcquireTest {

    private static final String NAME = "orders:42";
    private static final String OWNER = "0123456789abcdef0123456789abcdef";

    private final Members members = new Members(3);

    @AfterEach
    void close() {
        members.close();
    }

    private static Object join(java.util.concurrent.CompletableFuture<Object> call) throws Exception {
        return call.get(10, TimeUnit.SECONDS);
    }

    @Test
    void shouldGrantATokenAboveEveryMembersAndWriteItOnEveryMember() throws Exception {
        // Given one member whose counter is far ahead of the others'
        long ahead = 5_000_000_000_000_000L;
        members.store(1).writeKey(LockKeys.fenceKey(Members.PREFIX, NAME), Long.toString(ahead));
        try (QuorumBackend quorum = members.quorum()) {
            // When the quorum is asked for the lock
            List<?> reply = (List<?>) join(
                    quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 30_000, "1")));
            // Then it is granted with a token above that counter, and every member holds <owner>:<T>
            assertEquals(1L, reply.get(0), "status of " + reply);
            long token = (Long) reply.get(1);
            assertTrue(token > ahead + 1, "token " + token + " above every member's grant, the largest " + (ahead + 1));
            long pttl = (Long) reply.get(2);
            assertTrue(pttl > 0 && pttl <= 30_000 - AcquireTiming.driftMs(30_000), "pttl " + pttl);
            for (int i = 0; i < 3; i++) {
                assertEquals(
                        Optional.of(OWNER + ":" + token), members.store(i).get(Members.lockKey(NAME)), "member " + i);
                assertEquals(
                        Optional.of(Long.toString(token)),
                        members.store(i).hashField(LockKeys.quorumRecordKey(Members.PREFIX), "floor"),
                        "floor of member " + i);
            }
        }
    }

    @Test
    void shouldLeaveNoTimerPendingOnceAnAcquisitionIsDecided() throws Exception {
        try (QuorumBackend quorum = members.quorum()) {
            // When 50 acquisitions with a lease of a minute are granted and released, one after another
            for (int i = 0; i < 50; i++) {
                String name = "timers:" + i;
                List<?> reply = (List<?>) join(quorum.eval(
                        Members.ACQUIRE, Members.acquireKeys(name), Members.acquireArgs(OWNER, 60_000, "1")));
                assertEquals(1L, reply.get(0), "status of " + reply);
                join(quorum.eval(Members.RELEASE, Members.releaseKeys(name), Members.releaseArgs(OWNER)));
            }
            // Then no timer of theirs is left (each would keep its acquisition reachable for a minute)
            assertEquals(0, quorum.pendingTimers());
        }
    }

    @Test
    void shouldLeaveNoKeyOfItsOwnOnAnyMemberAfterASplitVote() throws Exception {
        // Given two other owners' phase-1 grants on two members, the third member free
        members.store(0).writeKey(Members.lockKey(NAME), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:5");
        members.store(1).writeKey(Members.lockKey(NAME), "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb:6");
        try (QuorumBackend quorum = members.quorum()) {
            // When the quorum is asked for the lock
            List<?> reply = (List<?>) join(
                    quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 30_000, "1")));
            // Then it answers contended, with a short random back-off as the holder's TTL ...
            assertEquals(0L, reply.get(0), "status of " + reply);
            long backoff = (Long) reply.get(2);
            assertTrue(backoff >= 1 && backoff <= ContendedReplies.MAX_BACKOFF_MS, "back-off " + backoff);
            // ... and the grant it got on the free member was released before it answered
            assertEquals(Optional.empty(), members.store(2).get(Members.lockKey(NAME)));
            assertEquals(
                    Optional.of("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:5"),
                    members.store(0).get(Members.lockKey(NAME)));
            assertEquals(
                    Optional.of("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb:6"),
                    members.store(1).get(Members.lockKey(NAME)));
        }
    }

    @Test
    void shouldAnswerAMajoritysHolderWithItsTokenAndTtl() throws Exception {
        // Given a holder on two members without a TTL (written by hand), the third member free
        members.store(0).writeKey(Members.lockKey(NAME), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:42");
        members.store(1).writeKey(Members.lockKey(NAME), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:42");
        try (QuorumBackend quorum = members.quorum()) {
            List<?> reply = (List<?>) join(
                    quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 30_000, "1")));
            // Then it names that holder and passes its "no TTL" (-1) on, not a back-off
            assertEquals(List.of(0L, 42L, -1L, 0L), reply);
            assertEquals(Optional.empty(), members.store(2).get(Members.lockKey(NAME)));
        }
    }

    @Test
    void shouldAnswerASplitVoteWithoutWaitingForAMemberThatDoesNotAnswer() throws Exception {
        try (QuorumBackend quorum = members.quorum()) {
            // Given members that take part (this client enlisted them) ...
            List<?> warmUp = (List<?>) join(quorum.eval(
                    Members.ACQUIRE, Members.acquireKeys("warm-up"), Members.acquireArgs(OWNER, 30_000, "1")));
            assertEquals(1L, warmUp.get(0), "warm-up: " + warmUp);
            // ... another owner's lock on member 0 only, and member 2 frozen (a member that died while the
            // driver keeps its commands until its command timeout: Lettuce's default is a minute)
            members.store(0).writeKey(Members.lockKey(NAME), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:42");
            members.store(2).freeze();
            try {
                // When the quorum is asked: member 1 grants, member 0 is contended, member 2 never answers
                List<?> reply = (List<?>) join(quorum.eval(
                        Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 3_000, "1")));
                // Then it answers a split vote after its patience with the silent member, not at the
                // driver's timeout, and the grant of member 1 is released
                assertEquals(0L, reply.get(0), "not granted: " + reply);
                Members.await(
                        "member 1's grant is released",
                        () -> members.store(1).get(Members.lockKey(NAME)).isEmpty());
            } finally {
                members.store(2).thaw();
            }
        }
    }

    @Test
    void shouldAnswerWithoutWaitingForAGrantingMemberThatDoesNotAnswerItsCommit() throws Exception {
        // Given member 1 that grants but never answers a commit (it died in between, its commands kept by
        // the driver), and another owner's lock on member 2: the commit needs members 0 and 1
        members.store(2).writeKey(Members.lockKey(NAME), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:42");
        List<LockBackend> backends = new java.util.ArrayList<>(Members.backends(members));
        backends.set(1, new ForwardingLockBackend(backends.get(1)) {
            @Override
            public java.util.concurrent.CompletableFuture<Object> eval(
                    LuaScript script, List<String> keys, List<String> args) {
                return script.name().equals(CommitPhase.SCRIPT.name())
                        ? new java.util.concurrent.CompletableFuture<>()
                        : super.eval(script, keys, args);
            }
        });
        try (QuorumBackend quorum = QuorumBackend.of(backends)) {
            // When the quorum is asked
            List<?> reply = (List<?>) join(
                    quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 3_000, "1")));
            // Then it answers not granted after the commit's patience, and member 0's grant is released
            assertEquals(0L, reply.get(0), "not granted: " + reply);
            Members.await(
                    "member 0's grant is released",
                    () -> members.store(0).get(Members.lockKey(NAME)).isEmpty());
        }
    }

    @Test
    void shouldGrantWhenTheCommitIsResentToAMemberThatCommittedItAlready() throws Exception {
        // Given member 0 whose first commit is never answered, and member 2 that restarts empty after this
        // client enlisted it (its commit answers that it takes no part)
        java.util.concurrent.atomic.AtomicBoolean firstCommit = new java.util.concurrent.atomic.AtomicBoolean(true);
        List<LockBackend> backends = new java.util.ArrayList<>(Members.backends(members));
        backends.set(0, new ForwardingLockBackend(backends.get(0)) {
            @Override
            public java.util.concurrent.CompletableFuture<Object> eval(
                    LuaScript script, List<String> keys, List<String> args) {
                return script.name().equals(CommitPhase.SCRIPT.name()) && firstCommit.getAndSet(false)
                        ? new java.util.concurrent.CompletableFuture<>()
                        : super.eval(script, keys, args);
            }
        });
        try (QuorumBackend quorum = QuorumBackend.of(backends)) {
            List<?> warmUp = (List<?>) join(quorum.eval(
                    Members.ACQUIRE, Members.acquireKeys("warm-up"), Members.acquireArgs(OWNER, 30_000, "1")));
            assertEquals(1L, warmUp.get(0), "warm-up: " + warmUp);
            firstCommit.set(true);
            members.store(2).restartWithoutPersistence();
            // When the quorum is asked: the first commit is made on member 1 only, member 2 takes no part
            // and member 0 is silent past the patience; the commit is resent with the same token
            List<?> reply = (List<?>) join(
                    quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 3_000, "1")));
            // Then member 1 (which holds <owner>:<T> already) answers committed, member 0 commits: granted
            assertEquals(1L, reply.get(0), "granted: " + reply);
            long token = (Long) reply.get(1);
            assertEquals(Optional.of(OWNER + ":" + token), members.store(0).get(Members.lockKey(NAME)));
            assertEquals(Optional.of(OWNER + ":" + token), members.store(1).get(Members.lockKey(NAME)));
        }
    }

    @Test
    void shouldCommitAgainAboveTheFloorWhenAMemberRefusesTheFirstToken() throws Exception {
        // Given two members (a majority) whose floors (the largest token committed on each) are far above
        // every counter, so that the first commit's token is refused where it counts
        long floor = 6_000_000_000_000_000L;
        members.takingPart(0, 0);
        members.takingPart(1, floor - 7);
        members.takingPart(2, floor);
        try (QuorumBackend quorum = members.quorum()) {
            List<?> reply = (List<?>) join(
                    quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 30_000, "1")));
            // Then the commit was sent again with a token above the largest floor, and committed on every
            // member (also the one that took the first token), the floors raised to it
            assertEquals(1L, reply.get(0), "status of " + reply);
            long token = (Long) reply.get(1);
            assertEquals(floor + 1, token);
            for (int i = 0; i < 3; i++) {
                assertEquals(
                        Optional.of(OWNER + ":" + token), members.store(i).get(Members.lockKey(NAME)), "member " + i);
                assertEquals(
                        Optional.of(Long.toString(token)),
                        members.store(i).hashField(LockKeys.quorumRecordKey(Members.PREFIX), "floor"),
                        "floor of member " + i);
            }
        }
    }

    @Test
    void shouldKeepTheFirstTokenWhenOnlyAMinorityRefusesIt() throws Exception {
        // Given one member (a minority) whose floor is far above every counter
        long floor = 6_000_000_000_000_000L;
        members.takingPart(0, 0);
        members.takingPart(1, 0);
        members.takingPart(2, floor);
        try (QuorumBackend quorum = members.quorum()) {
            List<?> reply = (List<?>) join(
                    quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 30_000, "1")));
            // Then the majority's commit stands, and the refusing member's phase-1 grant was released
            assertEquals(1L, reply.get(0), "status of " + reply);
            long token = (Long) reply.get(1);
            assertTrue(token < floor, "token " + token);
            assertEquals(Optional.of(OWNER + ":" + token), members.store(0).get(Members.lockKey(NAME)));
            assertEquals(Optional.of(OWNER + ":" + token), members.store(1).get(Members.lockKey(NAME)));
            assertEquals(Optional.empty(), members.store(2).get(Members.lockKey(NAME)));
        }
    }

    @Test
    void shouldCommitAPhaseOneGrantThatCameAfterTheDecisionSoThatTheLeaseLivesOnEveryMember() throws Exception {
        // Given a member far slower than the others (more than the straggler grace): its acquire runs
        // last, so the token it grants is above the quorum's token, which the two others' grants decided
        members.store(2).setLatency(Duration.ofMillis(500));
        try (QuorumBackend quorum = members.quorum()) {
            // When the quorum is asked for the lock
            List<?> reply = (List<?>) join(
                    quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 30_000, "1")));
            // Then the two others granted and committed it ...
            assertEquals(1L, reply.get(0), "status of " + reply);
            long token = (Long) reply.get(1);
            assertEquals(Optional.of(OWNER + ":" + token), members.store(0).get(Members.lockKey(NAME)));
            assertEquals(Optional.of(OWNER + ":" + token), members.store(1).get(Members.lockKey(NAME)));
            // ... and the slow member's grant, which came after the decision, is committed with the lease's
            // token too: the lease lives on every member, and survives the death of any one of them
            Members.await(
                    "the slow member's late grant was committed with the lease's token",
                    () -> Optional.of(OWNER + ":" + token)
                            .equals(members.store(2).get(Members.lockKey(NAME))));
            long lateGrant = Long.parseLong(members.store(2)
                    .get(LockKeys.fenceKey(Members.PREFIX, NAME))
                    .orElseThrow());
            assertTrue(
                    lateGrant >= token,
                    "the slow member granted " + lateGrant + ", not below the quorum's token " + token
                            + " (the case this test is about)");
        }
    }

    @Test
    void shouldSendEachMemberItsOwnPublishCommand() throws Exception {
        List<RecordingMember> recorders = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            recorders.add(new RecordingMember(members.fixtures.get(i).newBackend(), i != 1));
        }
        try (QuorumBackend quorum = QuorumBackend.of(recorders.toArray(io.leasehold.lock.spi.LockBackend[]::new))) {
            // When an acquire is sent with whatever the engine took from the quorum's own (fixed) answer
            join(quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 30_000, "1")));
            // Then each member got its own publish command (member 1 uses plain pub/sub)
            assertEquals("SPUBLISH", recorders.get(0).acquireArgs.get(4));
            assertEquals("PUBLISH", recorders.get(1).acquireArgs.get(4));
            assertEquals("SPUBLISH", recorders.get(2).acquireArgs.get(4));
        }
    }

    /** A member that records its last acquire's arguments, and says which pub/sub mode it uses. */
    private static final class RecordingMember extends io.leasehold.lock.testkit.ForwardingLockBackend {
        private final boolean sharded;
        volatile List<String> acquireArgs = List.of();

        RecordingMember(io.leasehold.lock.spi.LockBackend delegate, boolean sharded) {
            super(delegate);
            this.sharded = sharded;
        }

        @Override
        public java.util.concurrent.CompletableFuture<Object> eval(
                io.leasehold.lock.spi.LuaScript script, List<String> keys, List<String> args) {
            if (script.name().equals("acquire")) {
                acquireArgs = List.copyOf(args);
            }
            return delegate().eval(script, keys, args);
        }

        @Override
        public java.util.concurrent.CompletableFuture<Boolean> shardedPubSub() {
            return java.util.concurrent.CompletableFuture.completedFuture(sharded);
        }
    }

    @Test
    void shouldRefuseAPlaceInAMembersQueueForAnAttemptThatNamesNoWaiter() {
        try (QuorumBackend quorum = members.quorum()) {
            ExecutionException e = assertThrows(
                    ExecutionException.class,
                    () -> join(quorum.eval(
                            Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 30_000, "0"))));
            assertInstanceOf(IllegalStateException.class, e.getCause());
            assertEquals(
                    "a quorum keeps places only for fair waiters that name their waiter (ARGV[7]): acquire's place"
                            + " mode (ARGV[6]) must be '1', or '0' with a waiter, but was '0' with 6 arguments for lock"
                            + " 'leasehold:{orders:42}'",
                    e.getCause().getMessage());
            assertFalse(members.store(0).exists(Members.lockKey(NAME)), "nothing sent");
        }
    }

    @Test
    void shouldRaiseTokensAcrossAcquisitionsWhenOneMembersCounterWasDeleted() {
        try (LockClient client = LockClient.builder(members.quorum()).build()) {
            long previous = 0;
            for (int i = 0; i < 5; i++) {
                Lease lease = client.lock(NAME).acquire(Duration.ofSeconds(5));
                assertTrue(lease.fencingToken() > previous, "token " + lease.fencingToken() + " after " + previous);
                previous = lease.fencingToken();
                lease.release();
                // one member loses its counter; another's is rolled back far below
                members.store(i % 3).deleteKey(LockKeys.fenceKey(Members.PREFIX, NAME));
                members.store((i + 1) % 3).writeKey(LockKeys.fenceKey(Members.PREFIX, NAME), "1");
            }
        }
    }

    @Test
    void shouldGrantWithTwoOfFiveMembersDownAndFailWithThreeDown() throws Exception {
        try (Members five = new Members(5);
                QuorumBackend quorum = five.quorum()) {
            five.inUse();
            five.store(0).makeUnavailable();
            five.store(3).makeUnavailable();
            List<?> granted = (List<?>) join(
                    quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(OWNER, 30_000, "1")));
            assertEquals(1L, granted.get(0), "M = 3 of 5 granted: " + granted);
            for (int i : new int[] {1, 2, 4}) {
                assertEquals(
                        Optional.of(OWNER + ":" + granted.get(1)), five.store(i).get(Members.lockKey(NAME)));
            }
            five.store(4).makeUnavailable();
            ExecutionException e = assertThrows(
                    ExecutionException.class,
                    () -> join(quorum.eval(
                            Members.ACQUIRE, Members.acquireKeys("other"), Members.acquireArgs(OWNER, 30_000, "1"))));
            QuorumUnavailableException cause = assertInstanceOf(QuorumUnavailableException.class, e.getCause());
            assertTrue(cause.getMessage().contains("3 of 5 members failed"), cause.getMessage());
            assertFalse(five.store(1).exists(Members.lockKey("other")), "released on member 1");
            assertFalse(five.store(2).exists(Members.lockKey("other")), "released on member 2");
        }
    }

    @Test
    void shouldFailAndGrantNothingWhileTwoOfThreeMembersAreDown() {
        members.inUse();
        members.store(1).makeUnavailable();
        members.store(2).makeUnavailable();
        // (a short close: the engine's clean-up release of the failed attempt cannot be confirmed by a
        // majority either, and is retried until the close gives up on it)
        try (LockClient client = LockClient.builder(members.quorum())
                .closeTimeout(Duration.ofMillis(500))
                .build()) {
            LockBackendException e = assertThrows(
                    LockBackendException.class, () -> client.lock(NAME).acquire(Duration.ofMillis(300)));
            assertTrue(e.getMessage().contains(NAME), e.getMessage());
            QuorumUnavailableException cause = assertInstanceOf(QuorumUnavailableException.class, e.getCause());
            assertTrue(cause.getMessage().contains("2 of 3 members failed"), cause.getMessage());
            assertEquals(2, cause.getSuppressed().length, "each member's failure attached");
            assertFalse(members.store(0).exists(Members.lockKey(NAME)), "the one member's grant was released");
        }
    }

    @Test
    void shouldNotMakeANewQuorumWhileTwoOfThreeMembersAreDown() {
        members.store(1).makeUnavailable();
        members.store(2).makeUnavailable();
        try (QuorumBackend quorum = members.quorum()) {
            Throwable failure = assertThrows(
                            java.util.concurrent.CompletionException.class,
                            () -> quorum.eval(
                                            Members.ACQUIRE,
                                            Members.acquireKeys(NAME),
                                            Members.acquireArgs(OWNER, 30_000, "1"))
                                    .join())
                    .getCause();
            QuorumUnavailableException cause = assertInstanceOf(QuorumUnavailableException.class, failure);
            assertTrue(cause.getMessage().contains("2 of 3 members failed"), cause.getMessage());
            assertTrue(cause.isTransient());
            // Then the member that answered did not join: alone it cannot tell a new quorum from one whose
            // other members hold records
            assertFalse(members.store(0).exists(Members.lockKey(NAME)), "its phase-1 grant released");
            assertFalse(members.store(0).exists(LockKeys.quorumRecordKey(Members.PREFIX)), "no record made");
        }
    }
}
