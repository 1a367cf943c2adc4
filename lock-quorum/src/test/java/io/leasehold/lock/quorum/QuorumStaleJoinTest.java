package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.InMemoryFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;

/**
 * A join decided on a probe that found no record on any member (a new quorum) and arriving late (a
 * client paused between its probe and its join, or Lettuce replaying the join after it reconnected to a
 * member that restarted) must not make a member that lost its data meanwhile take part at once: the
 * join names the server process its probe answered from. Found by an independent attack (2026-11-28),
 * where it let a second holder in while the first lease was valid (6 of 6).
 */
class QuorumStaleJoinTest {

    private static final String NAME = "orders:77";
    private static final long LEASE_MS = 10_000;

    private final Members members = new Members(3);

    @AfterEach
    void close() {
        members.close();
    }

    /** A member backend of client Y whose quorum-enlist 'join' calls are held until released. */
    static final class HoldingJoins extends ForwardingLockBackend {
        final List<Runnable> held;

        HoldingJoins(LockBackend delegate, List<Runnable> held) {
            super(delegate);
            this.held = held;
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (!args.isEmpty() && "join".equals(args.get(0)) && keys.get(0).endsWith("quorum")) {
                CompletableFuture<Object> later = new CompletableFuture<>();
                held.add(() -> delegate().eval(script, keys, args).whenComplete((r, f) -> {
                    if (f != null) later.completeExceptionally(f);
                    else later.complete(r);
                }));
                return later;
            }
            return delegate().eval(script, keys, args);
        }
    }

    private static Object acquire(QuorumBackend q, String owner) {
        try {
            return q.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(owner, LEASE_MS, "1"))
                    .join();
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    private static boolean granted(Object reply) {
        return reply instanceof List && Long.valueOf(1).equals(((List<?>) reply).get(0));
    }

    @RepeatedTest(2)
    void shouldNotLetAJoinDecidedBeforeAMemberRestartedLetASecondHolderIn() throws Exception {
        List<Runnable> held = new CopyOnWriteArrayList<>();
        List<LockBackend> yMembers = new ArrayList<>();
        for (InMemoryFixture f : members.fixtures) {
            yMembers.add(new HoldingJoins(f.newBackend(), held));
        }
        try (QuorumBackend x = QuorumBackend.builder(Members.backends(members))
                        .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                        .build();
                QuorumBackend y = QuorumBackend.builder(yMembers)
                        .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                        .build()) {
            // Two clients start on a new quorum at once: Y probes (every member: no record) and its joins
            // are delayed (a pause, or buffered while a member is down and replayed later)
            CompletableFuture<Object> yAcquire = CompletableFuture.supplyAsync(() -> acquire(y, "y"));
            Members.await("Y's three joins are on their way", () -> held.size() == 3);

            // X probes the same new quorum, joins every member and is granted on all three
            Object first = acquire(x, "x");
            assertTrue(granted(first), "x is granted: " + first);
            Optional<String> xLease = Optional.of("x:" + ((List<?>) first).get(1));
            Members.await(
                    "x's lease is on every member",
                    () -> java.util.stream.IntStream.range(0, 3)
                            .allMatch(i -> xLease.equals(members.store(i).get(Members.lockKey(NAME)))));
            // its lease is held on exactly a majority: member 2's copy is gone
            members.store(2).deleteKey(Members.lockKey(NAME));
            // member 1, of X's majority, restarts without persistence
            members.store(1).restartWithoutPersistence();

            // Y's joins arrive now (member 1 has no record: it joins at once, taking part)
            held.forEach(Runnable::run);
            Object second = yAcquire.get();

            Optional<String> onMember0 = members.store(0).get(Members.lockKey(NAME));
            assertTrue(
                    !granted(second),
                    "a second holder while x's lease (" + first + ", still on member 0: " + onMember0
                            + ") is valid: y was granted " + second);
        }
    }
}
