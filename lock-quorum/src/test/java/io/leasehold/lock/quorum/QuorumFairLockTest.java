package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.InMemoryFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * fairLock over a quorum of three in-memory members: one order of the waiters on every member, by the
 * tickets the quorum chose (quorum-fair-acquire.lua, {@link FairWaiters}).
 */
class QuorumFairLockTest {

    private static final String NAME = "orders:7";
    private static final String QUEUE = LockKeys.quorumQueueKey(Members.PREFIX, NAME);

    private final Members members = new Members(3);
    private final List<LockClient> clients = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
        members.close();
    }

    private LockClient client(List<? extends LockBackend> backends) {
        LockClient client = LockClient.builder(QuorumBackend.of(backends)).build();
        clients.add(client);
        return client;
    }

    /**
     * Three waiters whose first calls reach the members in three different orders (member 0 queues
     * them a, b, c; member 1 b, c, a; member 2 c, a, b: by each member's own arrival order, every waiter
     * heads the queue of one member only). The tickets give every member one order, and the waiters
     * are served in it.
     */
    @Test
    void shouldServeWaitersWhoseFirstCallsReachedTheMembersInDifferentOrdersInOneOrder() throws Exception {
        Map<String, String> whoIsWaiter = new ConcurrentHashMap<>();
        List<FirstCallsInOrder> gates = List.of(
                new FirstCallsInOrder(members.fixtures.get(0), 0, whoIsWaiter),
                new FirstCallsInOrder(members.fixtures.get(1), 1, whoIsWaiter),
                new FirstCallsInOrder(members.fixtures.get(2), 2, whoIsWaiter));
        LockClient holderClient = client(gates.stream()
                .map(g -> new Gated(g.fixture.newBackend(), g, "holder"))
                .toList());
        Lease held = holderClient.fairLock(NAME).acquire(Duration.ofSeconds(5));
        gates.forEach(FirstCallsInOrder::arm);

        List<String> served = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String who = "waiter " + i;
            LockClient waiter = client(gates.stream()
                    .map(g -> new Gated(g.fixture.newBackend(), g, who))
                    .toList());
            waits.add(waiter.fairLock(NAME).acquireAsync(Duration.ofSeconds(20)).thenAccept(lease -> {
                served.add(who);
                lease.release();
            }));
        }
        for (FirstCallsInOrder gate : gates) {
            assertTrue(gate.ran.get(10, TimeUnit.SECONDS).size() == 3, "member " + gate.member + " ran 3 first calls");
        }
        // Given each member ran the three first calls in its own rotation of one order
        List<String> order = gates.get(0).ran.get();
        assertEquals(rotate(order, 1), gates.get(1).ran.get());
        assertEquals(rotate(order, 2), gates.get(2).ran.get());
        // Then, once each waiter asked again with its ticket, every member orders them alike ...
        awaitSameScoresEverywhere(3);
        List<String> byTicket = members.store(0).sortedSetMembers(QUEUE).stream()
                .map(whoIsWaiter::get)
                .toList();

        // ... and the holder's release serves them in that order
        assertTrue(held.release());
        CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        assertEquals(byTicket, served);
        for (int i = 0; i < 3; i++) {
            assertEquals(List.of(), members.store(i).sortedSetMembers(QUEUE), "places left on member " + i);
        }
    }

    /** Waiters queued one after the other are served in that order, and every member scores them alike. */
    @Test
    void shouldScoreEachWaiterAlikeOnEveryMemberAndServeThemInTurn() throws Exception {
        LockClient holderClient = client(
                members.fixtures.stream().map(InMemoryFixture::newBackend).toList());
        Lease held = holderClient.fairLock(NAME).acquire(Duration.ofSeconds(5));
        List<String> served = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String who = "waiter " + i;
            LockClient waiter = client(
                    members.fixtures.stream().map(InMemoryFixture::newBackend).toList());
            waits.add(waiter.fairLock(NAME).acquireAsync(Duration.ofSeconds(20)).thenAccept(lease -> {
                served.add(who);
                lease.release();
            }));
            int queued = i + 1;
            awaitSameScoresEverywhere(queued);
        }
        assertTrue(held.release());
        CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        assertEquals(List.of("waiter 0", "waiter 1", "waiter 2"), served);
    }

    /** Waits until every member queues {@code count} waiters with the same tickets (their written-back ones). */
    private void awaitSameScoresEverywhere(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Map<String, Double> first = members.store(0).sortedSetScores(QUEUE);
            boolean same = first.size() == count
                    && first.equals(members.store(1).sortedSetScores(QUEUE))
                    && first.equals(members.store(2).sortedSetScores(QUEUE));
            if (same) {
                return;
            }
            assertTrue(
                    System.nanoTime() < deadline,
                    "the members' queues never agreed: " + members.store(0).sortedSetScores(QUEUE) + ", "
                            + members.store(1).sortedSetScores(QUEUE) + ", "
                            + members.store(2).sortedSetScores(QUEUE));
            Thread.sleep(20);
        }
    }

    private static List<String> rotate(List<String> order, int by) {
        List<String> rotated = new ArrayList<>(order);
        Collections.rotate(rotated, -by);
        return rotated;
    }

    /**
     * One member's gate: once armed, it holds the first call of each fair waiter (quorum-fair-acquire)
     * until three waiters' first calls came, then runs them one after the other, in
     * the order of their waiter ids rotated by the member's index.
     */
    private static final class FirstCallsInOrder {
        final InMemoryFixture fixture;
        final int member;
        /** Which waiter (by the label of its client) each waiter id is, as their first calls tell. */
        final Map<String, String> whoIsWaiter;

        final CompletableFuture<List<String>> ran = new CompletableFuture<>();
        private final List<Held> held = new ArrayList<>();
        private boolean armed;

        FirstCallsInOrder(InMemoryFixture fixture, int member, Map<String, String> whoIsWaiter) {
            this.fixture = fixture;
            this.member = member;
            this.whoIsWaiter = whoIsWaiter;
        }

        synchronized void arm() {
            armed = true;
        }

        private record Held(String waiter, java.util.function.Supplier<CompletableFuture<?>> send) {}

        CompletableFuture<Object> eval(
                String who,
                LockBackend backend,
                LuaScript script,
                List<String> keys,
                List<String> args,
                Runnable writing) {
            boolean fair = script.name().equals(ScriptNames.QUORUM_FAIR_ACQUIRE);
            if (fair) {
                whoIsWaiter.putIfAbsent(args.get(3), who);
            }
            CompletableFuture<Object> reply = new CompletableFuture<>();
            List<Held> release = null;
            synchronized (this) {
                boolean firstCall =
                        fair && held.stream().noneMatch(h -> h.waiter().equals(args.get(3)));
                if (!armed || !firstCall || held.size() >= 3) {
                    return backend.eval(script, keys, args, writing);
                }
                held.add(new Held(
                        args.get(3),
                        () -> backend.eval(script, keys, args, writing).whenComplete((r, f) -> {
                            if (f != null) {
                                reply.completeExceptionally(f);
                            } else {
                                reply.complete(r);
                            }
                        })));
                if (held.size() == 3) {
                    release = new ArrayList<>(held);
                }
            }
            if (release != null) {
                release.sort((a, b) -> a.waiter().compareTo(b.waiter()));
                Collections.rotate(release, -member);
                List<String> order = release.stream().map(Held::waiter).toList();
                // one after the other: each runs once the one before it was answered
                CompletableFuture<?> chain = CompletableFuture.completedFuture(null);
                for (Held h : release) {
                    chain = chain.handle((r, f) -> null)
                            .thenCompose(ignored -> h.send().get());
                }
                chain.whenComplete((r, f) -> ran.complete(order));
            }
            return reply;
        }
    }

    /** A member backend whose calls pass through its {@link FirstCallsInOrder} gate. */
    private static final class Gated extends ForwardingLockBackend {
        private final FirstCallsInOrder gate;
        private final String who;

        Gated(LockBackend delegate, FirstCallsInOrder gate, String who) {
            super(delegate);
            this.gate = gate;
            this.who = who;
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            return gate.eval(who, delegate(), script, keys, args, () -> {});
        }

        @Override
        public CompletableFuture<Object> eval(
                LuaScript script, List<String> keys, List<String> args, Runnable writing) {
            return gate.eval(who, delegate(), script, keys, args, writing);
        }
    }
}
