package io.leasehold.lock.internal;

import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One client's local waiters, per lock name (G7): a FIFO queue whose head alone contends, and one
 * release-channel subscription per name shared by the queue, held while someone waits and for
 * {@link #LINGER_NANOS} after the last waiter left (a hot lock's waiters come and go all the time:
 * without the linger, every handoff within a client would unsubscribe and subscribe again). A
 * release message (or a resubscription after a reconnect) wakes the head; when the head leaves, the
 * next waiter becomes head and is woken. A waiter that joins as head (or a fair waiter) is handed the
 * messages that came after its last attempt was sent, before it joined, as if it had heard them
 * (the queue remembers its latest few, see {@link RecentMessages}): a release would otherwise leave it
 * waiting for its fallback, and a grant to another waiter would set no alarm for that grant's window;
 * grants to others do not make it ask (on a hot fair lock, some grant nearly always comes within a
 * waiter's round trip).
 *
 * <p><b>What the queue did not hear.</b> Messages published before the subscription is active, or
 * while its connection is down, reach nobody here. When it becomes active (or is made again), every
 * waiter queued then is told: the head and the fair waiters ask, and so does each waiter behind the
 * head whose attempt took a place in Redis's queue (a grant may name it: its attempt ran before an
 * earlier waiter of this client had queued here). A waiter that joins later, but whose attempt was
 * sent before, cannot know what it missed, and asks likewise. Without that, a grant published to
 * nobody would hold the lock unused until the grant's window ran out (1.5 s, at start-up of a hot
 * lock).
 *
 * <p>A fair lock's waiters ({@link GrantOrder#REDIS_QUEUE}) share the name's subscription but not
 * its order: Redis's queue orders them, so each hears every message (and passes over grants to
 * others) and each asks for itself; they are never handed the lock locally, and never hold up the
 * local queue.
 *
 * <p><b>Subscriptions never fail a waiter.</b> A subscribe that is slow or fails leaves the waiters
 * on their fallback retry (the holder's TTL); a failed subscribe is tried again with back-off while
 * someone waits, and one that completes after everybody left is unsubscribed at once, so nothing
 * stays subscribed when nobody waits.
 *
 * <p>This class is threadsafe. Queue changes happen inside the map's per-name compute, so that a
 * queue is never emptied and joined at once; message delivery takes only the queue's monitor and
 * never blocks the driver's I/O thread.
 */
final class WaitQueues {

    private static final long FIRST_RESUBSCRIBE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_RESUBSCRIBE_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** How long a name's queue keeps its subscription once nobody waits, in case a waiter comes back. */
    static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * The most local handoffs of one name in a row after which a handoff yields to the head of the
     * lock's wait queue in Redis, if another owner is ahead of the local waiter (see handoff.lua):
     * high enough that handoffs within a client (one round trip each) make most of the throughput,
     * low enough that another client's waiter waits a few handoffs, not for a whole run. A client's
     * turn is shorter when it has fewer waiters: see {@link Queue#claimHandoff}.
     */
    static final int HANDOFFS_BEFORE_YIELD = 8;

    private final Engine engine;
    private final ConcurrentMap<String, Queue> queues = new ConcurrentHashMap<>();

    WaitQueues(Engine engine) {
        this.engine = engine;
    }

    /**
     * Queues {@code waiter}; the first waiter of a name subscribes its release channel. Returns the
     * release messages that the waiter missed, to be handed to it as if it had heard them: those that
     * reached the queue at or after {@code lastSentNanos} (when its last attempt was sent; pass
     * {@link Long#MAX_VALUE} if it made none), before it joined, if it became the head of its client's
     * queue (or is a fair waiter, which hears every message); for a waiter behind the head, a grant
     * that names it (it takes that out of the local order); see {@link RecentMessages.Missed}.
     */
    RecentMessages.Missed join(String name, Acquisition waiter, long lastSentNanos) {
        Queue[] created = new Queue[1];
        RecentMessages.Missed[] missed = new RecentMessages.Missed[1];
        queues.compute(name, (key, existing) -> {
            Queue q = existing;
            if (q == null) {
                q = new Queue(name);
                created[0] = q;
            }
            missed[0] = q.add(waiter, lastSentNanos);
            return q;
        });
        if (created[0] != null) {
            created[0].subscribe();
        }
        return missed[0];
    }

    /** Removes {@code waiter}; wakes the next head, or lets the subscription linger when nobody waits. */
    void leave(String name, Acquisition waiter) {
        Queue[] emptied = new Queue[1];
        Acquisition[] nextHead = new Acquisition[1];
        queues.computeIfPresent(name, (key, q) -> {
            nextHead[0] = q.remove(waiter);
            if (q.isEmpty()) {
                emptied[0] = q;
            }
            return q;
        });
        if (emptied[0] != null) {
            emptied[0].linger();
        } else if (nextHead[0] != null) {
            nextHead[0].wake();
        }
    }

    /** Drops {@code q} and its subscription if nobody joined it since it began to linger. */
    private void expire(Queue q) {
        boolean[] removed = new boolean[1];
        queues.computeIfPresent(q.name, (key, current) -> {
            if (current == q && q.isEmpty()) {
                removed[0] = true;
                return null;
            }
            return current;
        });
        if (removed[0]) {
            q.close();
        }
    }

    /** Drops every queue and subscription at once (the client is closing; its waiters have ended). */
    void closeAll() {
        for (Queue q : List.copyOf(queues.values())) {
            if (queues.remove(q.name, q)) {
                q.close();
            }
        }
    }

    boolean isHead(String name, Acquisition waiter) {
        Queue q = queues.get(name);
        return q != null && q.head() == waiter;
    }

    /** Wakes the head of {@code name}'s queue, if anyone waits. */
    void wakeHead(String name) {
        Queue q = queues.get(name);
        if (q != null) {
            q.wakeHead();
        }
    }

    /** Whether someone of this client waits for {@code name} in its local order: a newcomer then queues behind them (no barging). */
    boolean hasWaiters(String name) {
        Queue q = queues.get(name);
        return q != null && q.head() != null;
    }

    /**
     * The head of {@code name}'s queue, claimed for a releasing lease's handoff, or null when nobody
     * waits or the head cannot take one now (its attempt is in flight, or it is ending). The handoff
     * that ends the client's turn (one pass over its waiters, at most {@link #HANDOFFS_BEFORE_YIELD}
     * handoffs, counted from lease to lease: see {@link DefaultLease#handoffStreak}) asks Redis to
     * yield instead if another owner heads the lock's wait queue (see
     * handoff.lua), so one client's waiters cannot keep the lock from the others' for long, and
     * clients with few waiters get turns as long as their waiters need; within one client the order
     * stays first-in first-out, but for a waiter that Redis's queue has ahead of its client's head
     * (its attempt took a place there first): a grant naming it, heard or possibly missed, lets it
     * take the lock out of the local order.
     *
     * @param releasingStreak the releasing lease's handoff streak
     */
    @Nullable
    Handoff claimHandoff(String name, int releasingStreak) {
        Queue q = queues.get(name);
        if (q == null) {
            return null;
        }
        return q.claimHandoff(releasingStreak);
    }

    /** Names with a queue, waiting or lingering (for tests and diagnostics). */
    int waitedNames() {
        return queues.size();
    }

    /** Names whose release channel is subscribed right now (for {@link io.leasehold.lock.LockClientDiagnostics}). */
    int subscribedNames() {
        int subscribed = 0;
        for (Queue q : queues.values()) {
            if (q.isSubscribed()) {
                subscribed++;
            }
        }
        return subscribed;
    }

    /** One name's FIFO and its subscription. */
    private final class Queue implements MessageListener {

        private final String name;
        private final ArrayDeque<Acquisition> waiters = new ArrayDeque<>();
        /** The fair lock's waiters of the name, in no order of ours (Redis's queue orders them). */
        private final Set<Acquisition> fairWaiters = new LinkedHashSet<>();
        // Subscription state, guarded by this.
        private boolean closed;
        private @Nullable Subscription active;
        private int failures;
        private EngineTimer.@Nullable Timeout retry;
        private EngineTimer.@Nullable Timeout lingering;
        /** The latest release messages, for the waiters that join after them; see {@link #join}. */
        private final RecentMessages recent = new RecentMessages();
        /** How many handoffs the current turn has before one may yield; see {@link #claimHandoff}. Guarded by this. */
        private int turnHandoffs = HANDOFFS_BEFORE_YIELD;

        Queue(String name) {
            this.name = name;
        }

        /** Adds {@code waiter}, ending a linger; the messages it missed (see {@link #join}). */
        synchronized RecentMessages.Missed add(Acquisition waiter, long lastSentNanos) {
            if (lingering != null) {
                lingering.cancel();
                lingering = null;
            }
            boolean missedCounts;
            if (waiter.ordersLocally()) {
                missedCounts = waiters.isEmpty(); // only a head asks
                waiters.addLast(waiter);
            } else {
                missedCounts = true;
                fairWaiters.add(waiter);
            }
            if (lastSentNanos == Long.MAX_VALUE) {
                return RecentMessages.Missed.NONE;
            }
            // A waiter behind its client's head hears no message but a grant naming it (its attempt
            // took a place in Redis's queue, see localWaiterBehindTheHead).
            return missedCounts ? recent.since(lastSentNanos) : recent.grantTo(waiter.owner(), lastSentNanos);
        }

        /** Nobody waits: keep the subscription for {@link #LINGER_NANOS}, then drop it unless someone joined. */
        synchronized void linger() {
            if (closed || lingering != null || !isEmpty()) {
                return;
            }
            lingering = engine.timer.schedule(() -> expire(this), LINGER_NANOS);
        }

        /** Returns the new head if {@code waiter} was the head and someone is left. */
        synchronized @Nullable Acquisition remove(Acquisition waiter) {
            if (fairWaiters.remove(waiter)) {
                return null;
            }
            boolean wasHead = waiters.peekFirst() == waiter;
            waiters.remove(waiter);
            return wasHead ? waiters.peekFirst() : null;
        }

        synchronized boolean isEmpty() {
            return waiters.isEmpty() && fairWaiters.isEmpty();
        }

        synchronized boolean isSubscribed() {
            return active != null;
        }

        synchronized @Nullable Acquisition head() {
            return waiters.peekFirst();
        }

        /**
         * Under the queue's monitor, so that the head cannot leave (and a newer head be skipped)
         * meanwhile. A turn begins with a lease of streak 0 (taken from Redis, or handed over by a
         * handoff that may have yielded but found nobody ahead in Redis's queue) and lasts one pass
         * over the waiters queued at its first handoff: each has the lock once, and the handoff
         * after the last of them may yield. So
         * with two workers per client the clients take turns of two, and each worker gets its share,
         * where a fixed bound let a client whose second worker happened to be back in line in time
         * keep longer turns (a per-worker spread of 6-12 % with two workers on each of four Lettuce
         * clients, 0.0-0.1 % with this rule, for 5-15 % less throughput there, as more turns cross
         * clients; unchanged with eight workers per client, whose turns were always eight).
         */
        synchronized @Nullable Handoff claimHandoff(int releasingStreak) {
            Acquisition head = waiters.peekFirst();
            if (head == null) {
                return null;
            }
            if (releasingStreak == 0) {
                turnHandoffs = Math.min(HANDOFFS_BEFORE_YIELD, waiters.size() + 1);
            }
            // A handoff that may yield but grants all the same (nobody is ahead in Redis's queue)
            // starts a new turn: another client's waiter that queues after it waits at most
            // HANDOFFS_BEFORE_YIELD handoffs.
            boolean mayYield = releasingStreak + 1 >= turnHandoffs;
            return head.claimHandoff(mayYield ? 0 : releasingStreak + 1, mayYield);
        }

        void subscribe() {
            CompletableFuture<Subscription> subscribing;
            try {
                subscribing = engine.backend.subscribe(engine.channel(name), this);
            } catch (RuntimeException e) {
                subscribing = CompletableFuture.failedFuture(e);
            }
            Futures.whenDone(subscribing, "the subscription to the release channel", name, this::onSubscribed);
        }

        private void onSubscribed(@Nullable Subscription subscription, @Nullable Throwable failure) {
            boolean unsubscribe = false;
            boolean wake = false;
            synchronized (this) {
                if (closed) {
                    unsubscribe = subscription != null; // everybody left while it was on its way
                } else if (failure != null || subscription == null) {
                    failures++;
                    long backoff =
                            Math.min(FIRST_RESUBSCRIBE_NANOS << Math.min(failures - 1, 10), MAX_RESUBSCRIBE_NANOS);
                    retry = engine.timer.schedule(this::resubscribe, backoff);
                } else {
                    active = subscription;
                    failures = 0;
                    recent.unheardBefore(engine.now()); // what was published before it was active
                    wake = true;
                }
            }
            if (unsubscribe) {
                subscription.unsubscribe();
            }
            if (wake) {
                for (Acquisition waiter : listeners()) {
                    waiter.wake();
                }
                behindTheHead().forEach(Acquisition::grantMayHaveBeenMissed);
            }
        }

        private void resubscribe() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                retry = null;
            }
            subscribe();
        }

        /** Nobody waits any more: drop the subscription (now, or when a pending one completes). */
        void close() {
            Subscription toDrop;
            synchronized (this) {
                closed = true;
                toDrop = active;
                active = null;
                if (retry != null) {
                    retry.cancel();
                    retry = null;
                }
                if (lingering != null) {
                    lingering.cancel();
                    lingering = null;
                }
            }
            if (toDrop != null) {
                toDrop.unsubscribe();
            }
        }

        @Override
        public void onMessage(String channel, String published) {
            // Where grants are composed of several servers' grants, one server's grant message is no
            // grant: it tells only that the lock was released there, so the head asks.
            String message = engine.backend.grantsAreComposed() && GrantOrder.isGrant(published)
                    ? GrantOrder.RELEASED_MESSAGE
                    : published;
            for (Acquisition waiter : messageArrived(message)) {
                waiter.releaseSeen(message);
            }
            if (GrantOrder.isGrant(message)) {
                Acquisition named = localWaiterBehindTheHead(message);
                if (named != null) {
                    named.grantedInRedis(message);
                }
            }
        }

        /**
         * The local waiter behind the head whose owner the grant {@code message} names, or null. Such
         * a waiter has a place in Redis's queue when its first attempt ran before an earlier waiter
         * of this client had queued here (a burst of acquisitions), and a release or a yield may grant
         * the lock to it: it does not hear release messages, so it is told here.
         */
        private synchronized @Nullable Acquisition localWaiterBehindTheHead(String message) {
            boolean head = true;
            for (Acquisition waiter : waiters) {
                if (!head && GrantOrder.names(message, waiter.owner())) {
                    return waiter;
                }
                head = false;
            }
            return null;
        }

        @Override
        public void onResubscribed(String channel) {
            // a release may have been published while the connection was down
            for (Acquisition waiter : unheardBeforeNow()) {
                waiter.wakeAfterResubscribe();
            }
            behindTheHead().forEach(Acquisition::grantMayHaveBeenMissed);
        }

        /**
         * Remembers the message (for a waiter that joins after it, see {@link #join}) and returns who
         * hears it: the head and the fair waiters.
         */
        private synchronized List<Acquisition> messageArrived(String message) {
            recent.heard(engine.now(), message);
            return listeners();
        }

        /** Remembers that what came before now may be unheard (for the waiters that join later); returns who is told. */
        private synchronized List<Acquisition> unheardBeforeNow() {
            recent.unheardBefore(engine.now());
            return listeners();
        }

        /** The local waiters behind the head, in their order. */
        private synchronized List<Acquisition> behindTheHead() {
            if (waiters.size() < 2) {
                return List.of();
            }
            List<Acquisition> behind = new ArrayList<>(waiters);
            return behind.subList(1, behind.size());
        }

        private synchronized List<Acquisition> listeners() {
            Acquisition head = waiters.peekFirst();
            if (fairWaiters.isEmpty()) {
                return head == null ? List.of() : List.of(head);
            }
            List<Acquisition> all = new ArrayList<>(fairWaiters.size() + 1);
            if (head != null) {
                all.add(head);
            }
            all.addAll(fairWaiters);
            return all;
        }

        private void wakeHead() {
            Acquisition head = head();
            if (head != null) {
                head.wake();
            }
        }

        @Override
        public String toString() {
            return "WaitQueue{" + name + "}";
        }
    }
}
