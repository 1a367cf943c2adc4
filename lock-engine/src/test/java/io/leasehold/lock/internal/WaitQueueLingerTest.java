package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.spi.Subscription;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A name's release-channel subscription lingers a moment after its last local waiter left (so that a
 * hot lock's waiters do not unsubscribe and subscribe again on every handoff), and a waiter that
 * joins such a lingering queue loses no wake-up: a release message that the queue received while
 * nobody waited, after the waiter's attempt was sent, makes it try again at once.
 */
class WaitQueueLingerTest {

    private static final String NAME = "linger:1";
    private final InMemoryLockBackend redis = new InMemoryLockBackend();
    private final HoldingBackend nodeBackend = new HoldingBackend(redis.newNode());
    private final CountingLockBackend node = new CountingLockBackend(nodeBackend);
    private final LockClient nodeClient = LockClient.create(node);
    private final LockClient otherClient = LockClient.create(redis.newNode());

    @AfterEach
    void close() {
        nodeClient.close();
        otherClient.close();
        redis.close();
    }

    @Test
    void shouldKeepTheSubscriptionForAWaiterThatComesRightAfterTheLastOneLeft() throws Exception {
        // Given a lock held elsewhere and a local waiter that subscribed, then gave up
        Lease held = otherClient.lock(NAME).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> first = nodeClient.lock(NAME).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("the first waiter subscribed", () -> node.activeSubscriptions() == 1);
        first.cancel(false);
        // When another local waiter comes right after
        long attemptsBefore = node.count(ScriptNames.ACQUIRE);
        CompletableFuture<Lease> second = nodeClient.lock(NAME).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("the second waiter tried once", () -> node.count(ScriptNames.ACQUIRE) > attemptsBefore);
        // Then it waits on the same subscription (no unsubscribe and subscribe again) ...
        assertEquals(1, node.subscribeCount(), "subscribes: " + node);
        assertEquals(0, node.unsubscribeCount(), "unsubscribes: " + node);
        // ... and is woken by the holder's release through it
        held.release();
        second.get(10, TimeUnit.SECONDS).release();
        // And once nobody waits any more, the subscription is dropped after its linger
        Eventually.until(() -> "the lingering subscription is dropped; " + node, () -> node.activeSubscriptions() == 0);
    }

    @Test
    void shouldRetryAtOnceWhenAReleaseCameToTheLingeringQueueWhileItsContendedReplyWasOnItsWay() throws Exception {
        // Given a lock held elsewhere (30 s lease: the waiter's fallback would come that late) and a
        // lingering subscription of this node, left by a waiter that gave up
        Lease held = otherClient.lock(NAME).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> first = nodeClient.lock(NAME).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("the first waiter subscribed", () -> node.activeSubscriptions() == 1);
        first.cancel(false);
        // When a new waiter's attempt finds the lock held, but its reply is delayed ...
        CompletableFuture<Object> heldReply = nodeBackend.holdNextAcquireReply();
        CompletableFuture<Lease> second = nodeClient.lock(NAME).acquireAsync(Duration.ofSeconds(20));
        Eventually.until("the new waiter's attempt ran", heldReply::isDone);
        assertEquals(0L, ((List<?>) heldReply.get()).get(0), "the attempt's status (contended)");
        // ... the holder releases, and the message reaches the queue while nobody waits in it ...
        int messagesBefore = nodeBackend.messages.get();
        held.release();
        Eventually.until(
                "the release message reached the lingering subscription",
                () -> nodeBackend.messages.get() > messagesBefore);
        assertFalse(second.isDone(), "the new waiter has not had its reply yet");
        nodeBackend.sendHeldReply();
        // Then the waiter does not sleep until its 30 s fallback: it tries again at once and gets the lock
        Lease lease = second.get(5, TimeUnit.SECONDS);
        assertTrue(lease.isValid(), "the new waiter's lease: " + lease);
        lease.release();
    }

    /** Holds back the reply of the next acquire (the command runs at once) and counts release messages delivered. */
    private static final class HoldingBackend extends ForwardingLockBackend {

        final AtomicInteger messages = new AtomicInteger();
        private final AtomicReference<CompletableFuture<Object>> toHold = new AtomicReference<>();
        private final AtomicReference<Runnable> heldSend = new AtomicReference<>();

        HoldingBackend(InMemoryLockBackend delegate) {
            super(delegate);
        }

        /** The next acquire's real reply, visible to the test once the command ran; the engine gets it on {@link #sendHeldReply()}. */
        CompletableFuture<Object> holdNextAcquireReply() {
            CompletableFuture<Object> ran = new CompletableFuture<>();
            toHold.set(ran);
            return ran;
        }

        void sendHeldReply() {
            Runnable send = heldSend.getAndSet(null);
            if (send == null) {
                throw new AssertionError("no acquire reply was held");
            }
            send.run();
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            CompletableFuture<Object> ran = script.name().equals(ScriptNames.ACQUIRE) ? toHold.getAndSet(null) : null;
            if (ran == null) {
                return super.eval(script, keys, args);
            }
            CompletableFuture<Object> toEngine = new CompletableFuture<>();
            super.eval(script, keys, args).whenComplete((reply, error) -> {
                heldSend.set(() -> {
                    if (error != null) {
                        toEngine.completeExceptionally(error);
                    } else {
                        toEngine.complete(reply);
                    }
                });
                if (error != null) {
                    ran.completeExceptionally(error);
                } else {
                    ran.complete(reply);
                }
            });
            return toEngine;
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
            return super.subscribe(channel, new MessageListener() {
                @Override
                public void onMessage(String channel, String message) {
                    listener.onMessage(channel, message);
                    messages.incrementAndGet(); // after the queue has had it
                }

                @Override
                public void onResubscribed(String channel) {
                    listener.onResubscribed(channel);
                }
            });
        }
    }
}
