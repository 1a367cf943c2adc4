package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The 8th local handoff in a row yields to the head of the lock's wait queue in Redis (handoff.lua
 * grants the lock to that waiter of another client, and gives the local waiter a place behind it):
 * the other client's waiter gets the lock next however late its thread runs, the local waiters get it
 * back on that client's release, and release messages that arrive late change nothing of the order.
 * The engine's clock stands still or moves by milliseconds: no timer decides the turn.
 */
class YieldToRedisQueueTest extends HandoffAttackSupport {

    private static final LockOptions NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();

    private final LateMessagesBackend othersBackend = new LateMessagesBackend(redis.newNode());
    private final List<String> order = new CopyOnWriteArrayList<>();

    @Test
    void shouldGrantTheYieldToTheOtherClientsWaiterEvenWhenItWakesLate() throws Exception {
        // Given twelve local waiters passing the lock on, and another client's waiter whose thread
        // will run late: its release messages are held back
        String name = "yield:late-other";
        Queued queued = queueBothClients(name);
        othersBackend.holdMessages();
        // When the 8th local handoff in a row yields, and the other client's waiter only acts on the
        // grant's message 20 ms later (on the engine's clock: far more than a thread switch)
        assertTrue(queued.held.release());
        awaitYield();
        advanceBy(Duration.ofMillis(20), Duration.ofMillis(1));
        othersBackend.deliverHeld();
        // Then it still gets the lock next, before the local waiters go on
        queued.other.get(10, TimeUnit.SECONDS);
        advanceUntil(
                "every local waiter had its turn",
                Duration.ofMillis(1),
                Duration.ofMillis(100),
                () -> queued.local.stream().allMatch(CompletableFuture::isDone));
        assertEquals(
                List.of("A1", "A2", "A3", "A4", "A5", "A6", "A7", "B", "A8", "A9", "A10", "A11", "A12"),
                order,
                "the order the lock went in; handoff replies " + gate.handoffReplies);
        assertFalse(redis.exists(lockKey(name)));
    }

    @Test
    void shouldGiveTheLockBackToTheLocalWaitersAsSoonAsTheOtherClientReleasesIt() throws Exception {
        // Given twelve local waiters passing the lock on, and another client's waiter
        String name = "yield:evidence";
        Queued queued = queueBothClients(name);
        // When the 8th local handoff in a row yields, and the other client's waiter takes the lock and
        // releases it at once (its release grants the lock to the local waiter queued behind it)
        assertTrue(queued.held.release());
        queued.other.get(10, TimeUnit.SECONDS);
        // Then the local waiters get it back and go on at once: the engine's clock stands still, so
        // no timer can have moved them
        Eventually.until(
                "every local waiter had its turn without the clock moving; order " + order + ", handoff replies "
                        + gate.handoffReplies,
                () -> queued.local.stream().allMatch(CompletableFuture::isDone));
        assertEquals(
                List.of("A1", "A2", "A3", "A4", "A5", "A6", "A7", "B", "A8", "A9", "A10", "A11", "A12"),
                order,
                "the order the lock went in; handoff replies " + gate.handoffReplies);
        assertFalse(redis.exists(lockKey(name)));
    }

    @Test
    void shouldKeepTheOrderWhenEarlierReleaseMessagesArriveLate() throws Exception {
        // Given the client under test saw nothing yet of a release it published earlier (a plain
        // release while only its lingering subscription listened): its messages run late
        String name = "yield:late-own-messages";
        LateMessagesBackend nodeBackend = new LateMessagesBackend(gate);
        client = LockClient.builder(nodeBackend).ticker(clock).build();
        Lease first = client.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> gaveUp = client.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        Eventually.until("the client's first waiter subscribed", () -> redis.subscriberCount(channel(name)) == 1);
        gaveUp.cancel(false); // the subscription lingers
        nodeBackend.holdMessages();
        assertTrue(first.release()); // a plain release: its message is held back
        // And twelve local waiters passing the lock on, and another client's waiter that also runs late
        Queued queued = queueBothClients(name, client);
        othersBackend.holdMessages();
        // When the 8th local handoff in a row yields, and the client under test then gets the earlier
        // release's message and the other client the yield's grant message
        assertTrue(queued.held.release());
        awaitYield();
        nodeBackend.deliverHeld();
        othersBackend.deliverHeld();
        // Then the late message makes no local waiter take the lock: the other client's waiter gets it next
        queued.other.get(10, TimeUnit.SECONDS);
        Eventually.until(
                "every local waiter had its turn; order " + order,
                () -> queued.local.stream().allMatch(CompletableFuture::isDone));
        assertEquals(
                List.of("A1", "A2", "A3", "A4", "A5", "A6", "A7", "B", "A8", "A9", "A10", "A11", "A12"),
                order,
                "the order the lock went in; handoff replies " + gate.handoffReplies);
        assertFalse(redis.exists(lockKey(name)));
    }

    @Test
    void shouldTakeAGrantMadeToALocalWaiterBehindTheHeadAtOnce() throws Exception {
        // Given another client holding the lock, and a burst of two local waiters whose first
        // attempts both ran before either had queued here: the first one's reply comes late, so the
        // second queues first and heads the local queue, while the first has the earlier place in
        // Redis's queue
        String name = "yield:burst";
        LockClient node = client(Duration.ofSeconds(5));
        other = LockClient.builder(othersBackend).ticker(clock).build();
        Lease elsewhere = other.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        gate.gateNextPlainAcquire(HandoffGateBackend.Gate.HOLD_REPLY);
        CompletableFuture<Lease> first = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        Eventually.until("the first attempt ran, its reply held", gate::holding);
        CompletableFuture<Lease> second = node.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitQueued(name, 2);
        gate.letGo();
        Eventually.until(
                "the first waiter queued behind the second",
                () -> redis.sortedSetMembers(queueKey(name)).size() == 2);
        // When the other client releases: Redis grants the lock to the first waiter's place
        assertTrue(elsewhere.release());
        // Then the first waiter takes it at once, though it is not its client's head (the manual
        // clock stands still: no fallback, no grant window, can have moved it)
        Lease lease = first.get(10, TimeUnit.SECONDS);
        assertFalse(second.isDone(), "the second waiter waits its turn");
        assertTrue(lease.release());
        assertTrue(second.get(10, TimeUnit.SECONDS).release());
        assertFalse(redis.exists(lockKey(name)));
    }

    /** A lease of the client under test holding {@code name}, the other client's waiter, and twelve local ones. */
    private record Queued(Lease held, CompletableFuture<Lease> other, List<CompletableFuture<Lease>> local) {}

    private Queued queueBothClients(String name) {
        return queueBothClients(name, client(Duration.ofSeconds(5)));
    }

    private Queued queueBothClients(String name, LockClient node) {
        other = LockClient.builder(othersBackend).ticker(clock).build();
        int subscribedBefore = redis.subscriberCount(channel(name)); // 1 if this client's subscription lingers
        Lease held = node.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        int acquiresBefore = gate.plainAcquires.get();
        CompletableFuture<Lease> othersWaiter = other.lock(name, NO_RENEW)
                .acquireAsync(Duration.ofSeconds(60))
                .thenApply(lease -> releasedAtOnce("B", lease));
        Eventually.until(
                "the other client's waiter subscribed",
                () -> redis.subscriberCount(channel(name)) == subscribedBefore + 1);
        List<CompletableFuture<Lease>> local = new ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            String label = "A" + i;
            local.add(node.lock(name, NO_RENEW)
                    .acquireAsync(Duration.ofSeconds(60))
                    .thenApply(lease -> releasedAtOnce(label, lease)));
            if (i == 1) {
                Eventually.until(
                        "both clients subscribed",
                        () -> redis.subscriberCount(channel(name)) == 2
                                && gate.plainAcquires.get() >= acquiresBefore + 1);
            }
        }
        return new Queued(held, othersWaiter, local);
    }

    private Lease releasedAtOnce(String label, Lease lease) {
        order.add(label);
        lease.release();
        return lease;
    }

    private void awaitYield() {
        Eventually.until(
                "a handoff yielded; handoff replies " + gate.handoffReplies,
                () -> gate.handoffReplies.stream().anyMatch(YieldToRedisQueueTest::yielded));
    }

    /** Whether {@code handoffReply} (as the gate records it) is a yield's: {0, token, pttl, 1} (see handoff.lua). */
    static boolean yielded(String handoffReply) {
        String reply = handoffReply.trim();
        return reply.startsWith("[0, ") && reply.endsWith(", 1]");
    }

    /** Another client's backend whose release messages can be held back, as if its threads ran late. */
    private static final class LateMessagesBackend extends ForwardingLockBackend {

        private final List<Runnable> held = new ArrayList<>();
        private boolean holding;

        LateMessagesBackend(LockBackend delegate) {
            super(delegate);
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
            return super.subscribe(channel, new MessageListener() {
                @Override
                public void onMessage(String on, String message) {
                    if (!held(() -> listener.onMessage(on, message))) {
                        listener.onMessage(on, message);
                    }
                }

                @Override
                public void onResubscribed(String on) {
                    listener.onResubscribed(on);
                }
            });
        }

        synchronized void holdMessages() {
            holding = true;
        }

        /** Keeps {@code delivery} for later while holding; false if it should go now. */
        private synchronized boolean held(Runnable delivery) {
            if (holding) {
                held.add(delivery);
            }
            return holding;
        }

        private synchronized boolean holdsAny() {
            return !held.isEmpty();
        }

        /**
         * Delivers what was held, in order, and stops holding. It first waits until a message was held:
         * the store delivers messages on a thread of its own, so a message published before this call
         * may still be on its way (on a busy machine, for longer than the test takes to get here).
         */
        void deliverHeld() {
            Eventually.until("a release message was held back", this::holdsAny);
            List<Runnable> now;
            synchronized (this) {
                holding = false;
                now = List.copyOf(held);
                held.clear();
            }
            now.forEach(Runnable::run);
        }
    }
}
