package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.spi.Subscription;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A waiter that joins its client's queue of a name after release messages reached that queue (they
 * came while its contended attempt's reply was on its way) is handed them as if it had heard them:
 * grants to other waiters do not make it ask again (on a hot fair lock some grant nearly always
 * comes within a round trip), a grant to itself hands it the lock, and a plain release makes it ask.
 * A grant that its client's queue may not have heard (published before the subscription was active,
 * or while it was down) makes the waiters that may hold it ask, and a waiter that answers a grant and
 * loses the reply asks again after its back-off, also behind its client's head. On a clock that
 * stands still unless a test moves it (no renewal of places, no fallback alarm fires) and the
 * in-memory store, whose channel delivers on one thread in order.
 */
class MissedMessagesOnJoinTest {

    private static final String NAME = "orders:42";
    private static final String CHANNEL = LockKeys.releaseChannel("leasehold:", NAME);
    private static final long BOUND_SECONDS = 10;

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private HeldReplies joiningBackend;
    private LockClient joiningClient;
    private final List<LockClient> others = new CopyOnWriteArrayList<>();
    /** Every message on the lock's channel, heard after the joining client's own subscription. */
    private final List<String> heard = new CopyOnWriteArrayList<>();

    private Subscription listening;

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        joiningBackend = new HeldReplies(redis.newNode());
        joiningClient = LockClient.builder(joiningBackend).ticker(clock).build();
    }

    @AfterEach
    void stop() throws Exception {
        if (listening != null) {
            listening.unsubscribe();
        }
        joiningClient.close();
        others.forEach(LockClient::close);
        redis.close();
    }

    private LockClient otherClient() {
        LockClient client = LockClient.builder(redis.newNode()).ticker(clock).build();
        others.add(client);
        return client;
    }

    /** Subscribes the test's own listener, after the joining client's: it hears each message after that client did. */
    private void listen() throws Exception {
        listening = redis.newNode()
                .subscribe(CHANNEL, (channel, message) -> heard.add(message))
                .get(BOUND_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void shouldNotAskAgainForGrantsToOthersItMissedWhileJoiningAndTakeItsOwnFromItsMessage() throws Exception {
        // Given a holder, a fair waiter of the joining client (its subscription active), and another client's fair
        // waiter
        Lease held = otherClient().fairLock(NAME).acquire(Duration.ZERO);
        CompletableFuture<Lease> first = joiningClient.fairLock(NAME).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("the joining client is subscribed", () -> redis.subscriberCount(CHANNEL) == 1);
        listen();
        LockClient otherWaiterClient = otherClient();
        CompletableFuture<Lease> other = otherWaiterClient.fairLock(NAME).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("two places in Redis's queue", () -> queueSize() == 2);
        // And a second fair waiter of the joining client whose contended reply is held on its way
        joiningBackend.holdNextAcquireReply();
        CompletableFuture<Lease> joining = joiningClient.fairLock(NAME).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("its attempt took the third place", () -> queueSize() == 3);
        String joiner = joiningBackend.heldOwner.get();

        // When, before its reply arrives, the lock is granted to the first waiter, then to the other client's
        assertTrue(held.release());
        Lease firstLease = first.get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertTrue(firstLease.release());
        Lease otherLease = other.get(BOUND_SECONDS, TimeUnit.SECONDS);
        Eventually.until("both grants were heard", () -> heard.size() == 2);
        joiningBackend.releaseHeldReply();

        // Then the joining waiter does not ask again for those grants to others
        Eventually.until("the joining waiter's reply was acted on", () -> !joiningBackend.replyHeld());
        assertEquals(1, joiningBackend.attempts(joiner), "one attempt: " + heard);
        assertFalse(joining.isDone());
        // And the release that grants it the lock hands it over by its message, with no further attempt
        assertTrue(otherLease.release());
        Lease lease = joining.get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertEquals(1, joiningBackend.attempts(joiner), "the grant's message handed it the lock");
        assertTrue(lease.fencingToken() > otherLease.fencingToken());
        assertTrue(lease.release());
    }

    @Test
    void shouldTakeAGrantToItselfThatItMissedWhileJoiningFromItsMessage() throws Exception {
        // Given a holder, and the joining client's subscription lingering after its waiter gave up
        Lease held = otherClient().fairLock(NAME).acquire(Duration.ZERO);
        CompletableFuture<Lease> gaveUp = joiningClient.fairLock(NAME).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("the joining client is subscribed", () -> redis.subscriberCount(CHANNEL) == 1);
        gaveUp.cancel(true);
        Eventually.until("the waiter that gave up left Redis's queue", () -> queueSize() == 0);
        listen();
        // And a fair waiter of the joining client whose contended reply is held on its way
        joiningBackend.holdNextAcquireReply();
        CompletableFuture<Lease> joining = joiningClient.fairLock(NAME).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("its attempt took a place", () -> queueSize() == 1);
        String joiner = joiningBackend.heldOwner.get();

        // When the holder releases before the reply arrives, granting the lock to that waiter
        releaseBeforeTheHeldReply(held);

        // Then the waiter takes the lock from the grant's message it missed, with no further attempt
        Lease lease = takenFromTheMissedGrant(joining, joiner);
        assertEquals(GrantOrder.WAITER_LEASE_MS, redis.pttl("leasehold:{" + NAME + "}"), "the grant's TTL");
        assertTrue(lease.fencingToken() > held.fencingToken());
        assertTrue(lease.release());
    }

    @Test
    void shouldTakeAGrantThatNamesAWaiterBehindItsClientsHeadThatItMissedWhileJoining() throws Exception {
        // Given a holder, and two plain waiters of the joining client whose attempts both took places in
        // Redis's queue: the first to reach Redis has its reply held on its way, so the second joins
        // its client's queue first, as its head
        Lease held = otherClient().lock(NAME).acquire(Duration.ZERO);
        joiningBackend.holdNextAcquireReply();
        CompletableFuture<Lease> behind = joiningClient.lock(NAME).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("the first attempt took a place", () -> queueSize() == 1);
        String joiner = joiningBackend.heldOwner.get();
        CompletableFuture<Lease> head = joiningClient.lock(NAME).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("the head is subscribed", () -> redis.subscriberCount(CHANNEL) == 1);
        Eventually.until("the head took the second place", () -> queueSize() == 2);
        listen();

        // When the holder releases, granting the lock to the first place's waiter, before its reply arrives
        releaseBeforeTheHeldReply(held);

        // Then that waiter, queued behind its client's head, takes the lock from the message it missed
        Lease lease = takenFromTheMissedGrant(behind, joiner);
        assertFalse(head.isDone(), "the head waits on");
        assertTrue(lease.release());
        assertTrue(head.get(BOUND_SECONDS, TimeUnit.SECONDS).release());
    }

    @Test
    void shouldTakeAGrantToAWaiterBehindItsClientsHeadThatCameBeforeItsClientListened() throws Exception {
        // Given a holder, and two plain waiters of the joining client whose attempts both took places in
        // Redis's queue: the first to reach Redis has its reply held on its way, so the second joins
        // its client's queue first, as its head, and its subscription is slow to become active
        Lease held = otherClient().lock(NAME).acquire(Duration.ZERO);
        TwoWaiters waiters = firstWaiterBehindTheHead(null, true, true);
        listen();

        // When the holder releases, granting the lock to the first place's waiter, while nobody of its
        // client listens yet (the grant's message reaches no one there), and then the subscription
        // becomes active
        assertTrue(held.release());
        Eventually.until("the grant was published", () -> heard.size() == 1);
        joiningBackend.releaseHeldSubscription();

        // Then that waiter, queued behind its client's head, asks once more and takes the lock (the
        // manual clock stands still: no fallback, no grant window, can have moved it)
        tookTheLockAheadOfItsHead(waiters, 2, "its contended attempt, and one after the subscription");
    }

    @Test
    void shouldAskAgainWhenItsAttemptWasSentBeforeItsClientListenedAndItJoinsAfterwards() throws Exception {
        // Given a holder, a plain waiter of the joining client whose reply is held on its way, and a
        // second one that joins its client's queue first, as its head, with a slow subscription
        Lease held = otherClient().lock(NAME).acquire(Duration.ZERO);
        TwoWaiters waiters = firstWaiterBehindTheHead(null, true, false);
        listen();

        // When the holder releases, granting the lock to the first waiter while its client does not
        // listen yet, the subscription becomes active (a millisecond after that waiter's attempt was
        // sent, on the clock that otherwise stands still), and only then does that waiter's reply arrive
        clock.advance(Duration.ofMillis(1));
        assertTrue(held.release());
        Eventually.until("the grant was published", () -> heard.size() == 1);
        joiningBackend.releaseHeldSubscription();
        Eventually.until("the subscription is active", () -> redis.subscriberCount(CHANNEL) == 2);
        joiningBackend.releaseHeldReply();

        // Then the waiter, which cannot know what came before its client listened, asks and takes the lock
        tookTheLockAheadOfItsHead(waiters, 2, "its contended attempt, and one after it joined");
    }

    @Test
    void shouldTakeAGrantToAWaiterBehindItsClientsHeadThatCameWhileItsClientWasDisconnected() throws Exception {
        // Given a holder, and two plain waiters of the joining client with places in Redis's queue:
        // the first to reach Redis has its reply held, so it queues behind its client's head
        Lease held = otherClient().lock(NAME).acquire(Duration.ZERO);
        TwoWaiters waiters = firstWaiterBehindTheHead(null, false, true);
        listen();

        // When the joining client's connection drops the grant's message to that waiter, and then
        // comes back and resubscribes
        joiningBackend.dropMessages();
        assertTrue(held.release());
        Eventually.until("the grant was published", () -> heard.size() == 1);
        joiningBackend.resubscribe();

        // Then that waiter, queued behind its client's head, asks once more and takes the lock
        tookTheLockAheadOfItsHead(waiters, 2, "its contended attempt, and one after the resubscription");
    }

    @Test
    void shouldAskAgainWhenTheAttemptAnsweringAGrantToAWaiterBehindItsClientsHeadLostItsReply() throws Exception {
        // Given a holder, and two plain waiters of the joining client with places in Redis's queue (no
        // renewal: such a lease is never taken from a grant's message, its waiter asks): the first to
        // reach Redis has its reply held, so it queues behind its client's head
        LockOptions noRenew = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(20))
                .autoRenew(false)
                .build();
        Lease held = otherClient().lock(NAME).acquire(Duration.ZERO);
        TwoWaiters waiters = firstWaiterBehindTheHead(noRenew, false, true);
        String joiner = waiters.behindOwner();

        // When the holder's release grants the lock to that waiter, whose attempt to take it runs in
        // Redis but loses its reply (a connection reset)
        joiningBackend.loseNextAcquireReply();
        assertTrue(held.release());
        Eventually.until("the grant's attempt ran", () -> joiningBackend.attempts(joiner) == 2);
        assertEquals(
                joiner + ":",
                redis.get("leasehold:{" + NAME + "}").orElseThrow().substring(0, 33));

        // Then, after its back-off (well within the grant's window, and far within the lease its
        // attempt set), it asks again and takes the lock, though it is not its client's head
        for (int i = 0; i < 10 && !waiters.behind().isDone(); i++) {
            clock.advance(Duration.ofMillis(100));
            Thread.sleep(50); // the engine's timer runs what became due within a millisecond or so
        }
        tookTheLockAheadOfItsHead(waiters, 3, "its contended attempt, the one that lost its reply, and its retry");
    }

    /** Two plain waiters of the joining client with places in Redis's queue: the first one queued behind the second. */
    private record TwoWaiters(CompletableFuture<Lease> behind, String behindOwner, CompletableFuture<Lease> head) {}

    /**
     * Two plain waiters of the joining client ({@code options}, or its defaults when null) whose
     * attempts both took places in Redis's queue: the first to reach Redis has its reply held on its
     * way, so the second joins its client's queue first, as its head; its subscription's confirmation
     * is held too if {@code slowSubscription}, and the first one's reply goes on if {@code replyArrives}.
     */
    private TwoWaiters firstWaiterBehindTheHead(LockOptions options, boolean slowSubscription, boolean replyArrives) {
        joiningBackend.holdNextAcquireReply();
        CompletableFuture<Lease> behind = lockOfJoiningClient(options).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("the first attempt took a place", () -> queueSize() == 1);
        String behindOwner = joiningBackend.heldOwner.get();
        if (slowSubscription) {
            joiningBackend.holdNextSubscription();
        }
        CompletableFuture<Lease> head = lockOfJoiningClient(options).acquireAsync(Duration.ofSeconds(30));
        Eventually.until("the head took the second place", () -> queueSize() == 2);
        if (slowSubscription) {
            Eventually.until("the head subscribes", joiningBackend::subscriptionHeld);
        } else {
            Eventually.until("the head is subscribed", () -> redis.subscriberCount(CHANNEL) == 1);
        }
        if (replyArrives) {
            joiningBackend.releaseHeldReply();
            Eventually.until("the first waiter's reply was acted on", () -> !joiningBackend.replyHeld());
        }
        return new TwoWaiters(behind, behindOwner, head);
    }

    private io.leasehold.lock.DistributedLock lockOfJoiningClient(LockOptions options) {
        return options == null ? joiningClient.lock(NAME) : joiningClient.lock(NAME, options);
    }

    /** The waiter behind the head took the lock ahead of it, after {@code attempts} attempts ({@code why}). */
    private void tookTheLockAheadOfItsHead(TwoWaiters waiters, int attempts, String why) throws Exception {
        Lease lease = waiters.behind().get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertEquals(waiters.behindOwner(), ((DefaultLease) lease).owner);
        assertEquals(attempts, joiningBackend.attempts(waiters.behindOwner()), why);
        assertFalse(waiters.head().isDone(), "the head waits on");
        assertTrue(lease.release());
        assertTrue(waiters.head().get(BOUND_SECONDS, TimeUnit.SECONDS).release());
    }

    /** Releases {@code held} (its grant's message reaches the joining client), then lets the held reply through. */
    private void releaseBeforeTheHeldReply(Lease held) {
        assertTrue(held.release());
        Eventually.until("the grant was heard", () -> heard.size() == 1);
        joiningBackend.releaseHeldReply();
    }

    /** The lease of {@code joiner}'s wait, which the missed grant's message handed over: its one attempt was the contended one. */
    private Lease takenFromTheMissedGrant(CompletableFuture<Lease> waiting, String joiner) throws Exception {
        Lease lease = waiting.get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertEquals(joiner, ((DefaultLease) lease).owner);
        assertEquals(1, joiningBackend.attempts(joiner), "the missed grant's message handed it the lock: " + heard);
        return lease;
    }

    private int queueSize() {
        return redis.sortedSetMembers("leasehold:{" + NAME + "}:queue").size();
    }

    /**
     * Counts acquire attempts per owner, and holds back the reply of the next acquire when asked (the
     * command runs); holds back the next subscription's confirmation (the subscription is made when
     * it is let go), and drops messages until a resubscription, as a connection that dropped would.
     */
    private static final class HeldReplies extends ForwardingLockBackend {
        final AtomicReference<String> heldOwner = new AtomicReference<>();
        private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
        private volatile boolean holdNext;
        private final AtomicReference<Runnable> held = new AtomicReference<>();
        private volatile boolean replyHeld;

        private volatile boolean loseNext;
        private final AtomicReference<Runnable> heldSubscription = new AtomicReference<>();
        private volatile boolean holdNextSubscription;
        private volatile boolean dropping;
        private final List<Runnable> resubscriptions = new CopyOnWriteArrayList<>();

        HeldReplies(InMemoryLockBackend delegate) {
            super(delegate);
        }

        /** The next acquire runs, and its reply is lost (a connection reset after it ran). */
        void loseNextAcquireReply() {
            loseNext = true;
        }

        void holdNextSubscription() {
            holdNextSubscription = true;
        }

        boolean subscriptionHeld() {
            return heldSubscription.get() != null;
        }

        void releaseHeldSubscription() {
            Runnable subscribe = heldSubscription.getAndSet(null);
            if (subscribe == null) {
                throw new AssertionError("no subscription was held");
            }
            subscribe.run();
        }

        /** From now on, messages are lost until {@link #resubscribe()}. */
        void dropMessages() {
            dropping = true;
        }

        /** Ends {@link #dropMessages()} and tells every subscription's listener it was resubscribed. */
        void resubscribe() {
            assertTrue(dropping, "messages were being dropped");
            dropping = false;
            resubscriptions.forEach(Runnable::run);
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
            MessageListener lossy = new MessageListener() {
                @Override
                public void onMessage(String on, String message) {
                    if (!dropping) {
                        listener.onMessage(on, message);
                    }
                }

                @Override
                public void onResubscribed(String on) {
                    listener.onResubscribed(on);
                }
            };
            resubscriptions.add(() -> lossy.onResubscribed(channel));
            if (!holdNextSubscription) {
                return super.subscribe(channel, lossy);
            }
            holdNextSubscription = false;
            CompletableFuture<Subscription> subscribed = new CompletableFuture<>();
            heldSubscription.set(() -> super.subscribe(channel, lossy).whenComplete((subscription, error) -> {
                if (error == null) {
                    subscribed.complete(subscription);
                } else {
                    subscribed.completeExceptionally(error);
                }
            }));
            return subscribed;
        }

        void holdNextAcquireReply() {
            holdNext = true;
        }

        void releaseHeldReply() {
            Runnable reply = held.getAndSet(null);
            if (reply == null) {
                throw new AssertionError("no reply was held");
            }
            reply.run();
        }

        boolean replyHeld() {
            return replyHeld;
        }

        int attempts(String owner) {
            AtomicInteger count = attempts.get(owner);
            return count == null ? 0 : count.get();
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (!script.name().equals(ScriptNames.ACQUIRE)) {
                return super.eval(script, keys, args);
            }
            attempts.computeIfAbsent(args.get(0), owner -> new AtomicInteger()).incrementAndGet();
            CompletableFuture<Object> ran = super.eval(script, keys, args);
            if (loseNext) {
                loseNext = false;
                return ran.thenCompose(r -> CompletableFuture.failedFuture(new SocketException("reset after it ran")));
            }
            if (!holdNext) {
                return ran;
            }
            holdNext = false;
            replyHeld = true;
            heldOwner.set(args.get(0));
            CompletableFuture<Object> reply = new CompletableFuture<>();
            held.set(() -> ran.whenComplete((value, error) -> {
                if (error == null) {
                    reply.complete(value); // (runs the engine's handling of it, in this thread)
                } else {
                    reply.completeExceptionally(error);
                }
                replyHeld = false;
            }));
            return reply;
        }
    }
}
