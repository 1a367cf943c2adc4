package io.leasehold.lock.jedis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One subscriber connection and its thread, for one node, for a client whose pub/sub reads block a
 * thread (as Jedis's do): the subscriber owns a thread, borrows a connection (from the user's pool)
 * while it has channels, and adds and removes channels on that connection as waiters come and go.
 * Messages are handed to {@link Events#message} on this thread. The driver supplies how to borrow,
 * give back, discard and cut a connection ({@link Connector}) and how a session reads and writes on
 * it ({@link Session}), and calls {@link #onSubscribed}, {@link #onUnsubscribed} and
 * {@link #onMessage} from its session's callbacks.
 *
 * <p><b>Sessions.</b> A session starts when the first channel is wanted: it borrows a connection and
 * subscribes one wanted channel, then each other one in a command of its own (sharded pub/sub allows
 * one slot per command). Later channels are subscribed (and unwanted ones unsubscribed) on
 * the same connection. When no channel is wanted any more, the last unsubscribe ends the session and
 * nothing more is written, so the connection goes back to the pool with every reply read. A session
 * that ends otherwise (the connection dropped, Redis dropped a channel by itself, a write failed) has
 * its connection discarded, fails the subscribes still waiting for Redis, and reports the channels
 * that Redis had confirmed to {@link Events#lost}, so that they are subscribed again, wherever they
 * now live.
 *
 * <p><b>Close.</b> {@link #close()} disconnects the socket, so that a read blocked on a mute server
 * ends at once, and the thread ends.
 *
 * <p>This class is threadsafe: state is guarded by one monitor; the socket is only read on the
 * subscriber's thread and only written under the monitor.
 *
 * @param <C> the client's connection type
 */
final class BlockingSubscriber<C> {

    /** How the subscriber gets and gets rid of connections. Methods may block (they run on the subscriber's thread), except {@link #cut}. */
    interface Connector<C> {
        /** Borrows a connection to this subscriber's node. */
        C borrow();

        /** Gives a connection back whose every reply was read (to the pool it came from). */
        void giveBack(C connection);

        /** Discards a connection that may have replies unread or is broken: never reused. */
        void discard(C connection);

        /** Closes the socket at once, from another thread, so that a read blocked on it ends; must not block. */
        void cut(C connection) throws Exception;
    }

    /**
     * One subscribe session on one connection: {@link #run} blocks the subscriber's thread reading
     * until the last channel is unsubscribed (returns) or the connection fails (throws); the other
     * methods write one command and return.
     */
    interface Session<C> {
        void run(C connection, String[] channels);

        void add(String channel);

        void remove(String channel);
    }

    /** What the subscriber reports; called on its thread, never under its monitor. */
    interface Events {
        void message(String channel, String message);

        /** Redis dropped {@code channel} by itself (its slot moved); the session goes on. */
        void droppedByServer(String channel);

        /** The session ended unexpectedly: {@code channels} were confirmed and must be subscribed again. */
        void lost(Set<String> channels, Throwable cause);
    }

    private final String node;
    private final Connector<C> connector;
    private final Function<BlockingSubscriber<C>, Session<C>> newSession;
    private final Events events;
    private final Thread thread;

    private final Object lock = new Object();
    // All below guarded by lock.
    /** Channels that should be subscribed. */
    private final Set<String> wanted = new LinkedHashSet<>();
    /** Subscribes waiting for Redis's confirmation, by channel. */
    private final Map<String, CompletableFuture<Void>> subscribing = new HashMap<>();
    /** Unsubscribes waiting for Redis's confirmation, by channel. */
    private final Map<String, List<CompletableFuture<Void>>> unsubscribing = new HashMap<>();
    /** Channels this session sent a subscribe for and no unsubscribe since. */
    private final Set<String> sent = new HashSet<>();
    /** Channels Redis confirmed in this session (and not unsubscribed since). */
    private final Set<String> confirmed = new HashSet<>();

    private @Nullable C connection;
    private @Nullable Session<C> session;
    /** The session's first confirmation arrived: Jedis lets other threads write to it from now on. */
    private boolean ready;
    /** The last unsubscribe of the session is out: nothing more may be written. */
    private boolean draining;

    private boolean closed;

    /**
     * Starts the subscriber's daemon thread, which waits until a channel is wanted.
     *
     * @param node       names the node in errors
     * @param threadName the thread's name (a driver's {@code leasehold-<driver>-pubsub-*})
     * @param connector  how connections are borrowed and let go
     * @param newSession a new session of this subscriber, for each connection
     * @param events     where messages and lost channels go
     */
    BlockingSubscriber(
            String node,
            String threadName,
            Connector<C> connector,
            Function<BlockingSubscriber<C>, Session<C>> newSession,
            Events events) {
        this.node = node;
        this.connector = connector;
        this.newSession = newSession;
        this.events = events;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Subscribes {@code channel}; completes once Redis confirmed it, fails if the session ends first. */
    CompletableFuture<Void> subscribe(String channel) {
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(
                        new IllegalStateException("the subscriber of " + node + " is closed"));
            }
            wanted.add(channel);
            CompletableFuture<Void> confirmation =
                    subscribing.computeIfAbsent(channel, ignored -> new CompletableFuture<>());
            if (ready && !draining) {
                reconcile();
            } else {
                lock.notifyAll();
            }
            return confirmation;
        }
    }

    /** Unsubscribes {@code channel}; completes once Redis confirmed it (or at once if it was not subscribed). */
    CompletableFuture<Void> unsubscribe(String channel) {
        synchronized (lock) {
            wanted.remove(channel);
            if (!ready || draining || !sent.contains(channel)) {
                // Not on this connection (yet): if a starting session subscribes it, its confirmation
                // finds it unwanted and unsubscribes it then.
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> confirmation = new CompletableFuture<>();
            unsubscribing.computeIfAbsent(channel, ignored -> new ArrayList<>()).add(confirmation);
            reconcile();
            return confirmation;
        }
    }

    /** Whether this loop has no channel and no session: a cluster may forget it. */
    boolean idle() {
        synchronized (lock) {
            return wanted.isEmpty() && connection == null;
        }
    }

    /** Ends the session and the thread; fails subscribes still waiting. Idempotent; does not wait. */
    void close() {
        C open;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            open = connection;
            lock.notifyAll();
        }
        thread.interrupt(); // a borrow waiting for a pooled connection
        if (open != null) {
            try {
                connector.cut(open); // a read blocked on a mute server ends now
            } catch (Exception ignored) {
                // the socket is gone either way
            }
        }
    }

    /** Waits up to {@code millis} for the thread to end; returns whether it did. */
    boolean awaitEnd(long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
    }

    @Override
    public String toString() {
        return "BlockingSubscriber{" + node + "}";
    }

    // ---- the subscriber's thread ----------------------------------------------------------------------

    private void run() {
        while (true) {
            List<String> initial;
            synchronized (lock) {
                while (!closed && wanted.isEmpty()) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        // close() interrupts; the loop condition decides
                    }
                }
                if (closed) {
                    break;
                }
                // One channel to open the session with; the others follow one command each once it is
                // ready. (One SSUBSCRIBE may only name channels of one slot: a node's channels of
                // several slots in one command would fail with CROSSSLOT, every time they were retried
                // together.)
                initial = List.of(wanted.iterator().next());
            }
            runSession(initial);
        }
        failWaiting(new IllegalStateException("the subscriber of " + node + " is closed"));
    }

    private void runSession(List<String> initial) {
        C borrowed;
        try {
            borrowed = connector.borrow();
        } catch (RuntimeException e) {
            endSession(null, e);
            return;
        }
        Session<C> current = newSession.apply(this);
        synchronized (lock) {
            if (closed) {
                discardQuietly(borrowed);
                return;
            }
            connection = borrowed;
            session = current;
            sent.addAll(initial);
        }
        Throwable failure = null;
        try {
            current.run(borrowed, initial.toArray(new String[0]));
        } catch (RuntimeException e) {
            failure = e;
        }
        endSession(borrowed, failure);
    }

    /** The session ended (or never started, when {@code used} is null). */
    private void endSession(@Nullable C used, @Nullable Throwable failure) {
        boolean clean;
        Set<String> lost = Set.of();
        List<CompletableFuture<Void>> failed = new ArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        synchronized (lock) {
            clean = used != null && failure == null && draining && !closed;
            for (List<CompletableFuture<Void>> waiting : unsubscribing.values()) {
                done.addAll(waiting); // no connection, no subscription: unsubscribed
            }
            unsubscribing.clear();
            if (!clean) {
                lost = new LinkedHashSet<>(confirmed);
                lost.retainAll(wanted);
                failed.addAll(subscribing.values());
                subscribing.clear();
                wanted.clear();
            }
            sent.clear();
            confirmed.clear();
            connection = null;
            session = null;
            ready = false;
            draining = false;
        }
        if (used != null) {
            if (clean) {
                giveBackQuietly(used); // every reply read: back to the pool
            } else {
                discardQuietly(used);
            }
        }
        done.forEach(future -> future.complete(null));
        Throwable cause = failure != null ? failure : new IOException("the pub/sub connection to " + node + " ended");
        failed.forEach(future -> future.completeExceptionally(cause));
        if (!lost.isEmpty() && !isClosed()) {
            events.lost(lost, cause);
        }
    }

    private void failWaiting(Throwable cause) {
        List<CompletableFuture<Void>> failed;
        synchronized (lock) {
            failed = new ArrayList<>(subscribing.values());
            subscribing.clear();
            unsubscribing.values().forEach(failed::addAll);
            unsubscribing.clear();
        }
        failed.forEach(future -> future.completeExceptionally(cause));
    }

    private boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    private void discardQuietly(C used) {
        try {
            connector.discard(used); // never back to the pool with replies unread
        } catch (RuntimeException ignored) {
            // a broken connection the pool could not destroy cleanly is gone all the same
        }
    }

    private void giveBackQuietly(C used) {
        try {
            connector.giveBack(used);
        } catch (RuntimeException ignored) {
            // the pool may be closing with the user's client; the connection is not ours to keep
        }
    }

    // ---- callbacks from the session, on the subscriber's thread ----------------------------------------

    void onSubscribed(String channel) {
        CompletableFuture<Void> confirmation;
        synchronized (lock) {
            if (!ready) {
                ready = true;
                reconcile(); // what changed while the session was starting
            }
            if (sent.contains(channel)) {
                confirmed.add(channel);
            }
            confirmation = wanted.contains(channel) ? subscribing.remove(channel) : null;
        }
        if (confirmation != null) {
            confirmation.complete(null);
        }
    }

    void onUnsubscribed(String channel) {
        List<CompletableFuture<Void>> ours;
        boolean byServer;
        synchronized (lock) {
            confirmed.remove(channel);
            ours = unsubscribing.remove(channel);
            // Redis unsubscribes shard channels by itself when their slot moves to another node.
            byServer = ours == null && sent.remove(channel) && wanted.remove(channel);
        }
        if (ours != null) {
            ours.forEach(future -> future.complete(null));
        }
        if (byServer) {
            events.droppedByServer(channel);
        }
    }

    void onMessage(String channel, String message) {
        events.message(channel, message);
    }

    /**
     * Brings the connection in line with {@link #wanted}: unsubscribes what is no longer wanted,
     * subscribes what is new; when nothing is left, the session drains and nothing more is written.
     * Called under the monitor, only once the session is ready and while it is not draining.
     */
    private void reconcile() {
        Session<C> current = session;
        if (current == null) {
            return;
        }
        try {
            // Subscribes first, so that the server's count never passes through 0 (which would end the
            // session) while a channel is still wanted.
            for (String channel : wanted) {
                if (sent.add(channel)) {
                    current.add(channel);
                }
            }
            for (String channel : new ArrayList<>(sent)) {
                if (!wanted.contains(channel)) {
                    sent.remove(channel);
                    unsubscribing.computeIfAbsent(channel, ignored -> new ArrayList<>());
                    current.remove(channel);
                }
            }
            if (sent.isEmpty()) {
                draining = true; // the count falls to 0 with the last reply; the session's run() then returns
            }
        } catch (RuntimeException writeFailed) {
            // The read side sees the same broken connection and ends the session, which fails the
            // subscribes still waiting; nothing more to do here.
        }
    }
}
