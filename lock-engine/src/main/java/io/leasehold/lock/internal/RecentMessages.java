package io.leasehold.lock.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The latest release messages of one lock name that reached its client's wait queue, with when they
 * came, so that a waiter that joins the queue after its contended reply can be handed those it
 * missed while that reply was on its way (see {@link WaitQueues#join}). It keeps at most
 * {@link #CAPACITY}: a waiter's attempt is a round trip, and only a few grants fit in one on a hot
 * lock. A waiter that may have missed more (messages it no longer keeps, or that came before the
 * queue's subscription was active or while it was down, see {@link #unheardBefore}) is told that it
 * cannot know ({@link Missed#UNKNOWN}) and asks.
 *
 * <p>Not threadsafe: owned by one {@code WaitQueues.Queue}, under its monitor.
 */
final class RecentMessages {

    /** How many messages it keeps. */
    static final int CAPACITY = 16;

    /** The messages a joining waiter missed, oldest first; {@code unknown} if it cannot tell. */
    record Missed(List<String> messages, boolean unknown) {
        static final Missed NONE = new Missed(List.of(), false);
        static final Missed UNKNOWN = new Missed(List.of(), true);
    }

    /** A release message and when it reached the queue. */
    private record Heard(long nanos, String message) {}

    private final ArrayDeque<Heard> recent = new ArrayDeque<>();
    /** Messages that came before this may be missing (dropped for room, or unheard), or null if none may be. */
    private @Nullable Long missingBeforeNanos;

    /** Keeps {@code message}, which came at {@code nanos}, dropping the oldest if full. */
    void heard(long nanos, String message) {
        if (recent.size() == CAPACITY) {
            missingBefore(recent.removeFirst().nanos() + 1);
        }
        recent.addLast(new Heard(nanos, message));
    }

    /**
     * Messages published before {@code nanos} went unheard: the subscription became active, or was
     * made again after its connection dropped, at {@code nanos}. An attempt sent at that very
     * instant (only a clock that stands still shows one) is taken to have come after it.
     */
    void unheardBefore(long nanos) {
        missingBefore(nanos);
    }

    private void missingBefore(long nanos) {
        if (missingBeforeNanos == null || nanos - missingBeforeNanos > 0) {
            missingBeforeNanos = nanos;
        }
    }

    /** Whether a message that came at or after {@code sinceNanos} may be missing. */
    private boolean mayMiss(long sinceNanos) {
        return missingBeforeNanos != null && missingBeforeNanos - sinceNanos > 0;
    }

    /** Every message that came at or after {@code sinceNanos}, or {@link Missed#UNKNOWN} if one of those may be missing. */
    Missed since(long sinceNanos) {
        if (mayMiss(sinceNanos)) {
            return Missed.UNKNOWN;
        }
        List<String> missed = new ArrayList<>(0);
        for (Heard heard : recent) {
            if (heard.nanos() - sinceNanos >= 0) {
                missed.add(heard.message());
            }
        }
        return missed.isEmpty() ? Missed.NONE : new Missed(missed, false);
    }

    /**
     * The grant naming {@code owner} among the messages that came at or after {@code sinceNanos}, or
     * {@link Missed#UNKNOWN} if one of those may be missing.
     */
    Missed grantTo(String owner, long sinceNanos) {
        if (mayMiss(sinceNanos)) {
            return Missed.UNKNOWN;
        }
        for (Heard heard : recent) {
            String message = heard.message();
            if (heard.nanos() - sinceNanos >= 0 && GrantOrder.isGrant(message) && GrantOrder.names(message, owner)) {
                return new Missed(List.of(message), false);
            }
        }
        return Missed.NONE;
    }
}
