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
 * lock; a waiter that missed more is told that it cannot know ({@link Missed#UNKNOWN}) and asks.
 *
 * <p>Not threadsafe: owned by one {@code WaitQueues.Queue}, under its monitor.
 */
final class RecentMessages {

    /** How many messages it keeps. */
    static final int CAPACITY = 16;

    /** The messages a joining waiter missed, oldest first (null: a resubscription); {@code unknown} if it cannot tell. */
    record Missed(List<@Nullable String> messages, boolean unknown) {
        static final Missed NONE = new Missed(List.of(), false);
        static final Missed UNKNOWN = new Missed(List.of(), true);
    }

    /** A release message (null for a resubscription) and when it reached the queue. */
    private record Heard(long nanos, @Nullable String message) {}

    private final ArrayDeque<Heard> recent = new ArrayDeque<>();
    /** When the latest message it no longer keeps had come, or null if it has dropped none. */
    private @Nullable Long forgottenNanos;

    /** Keeps {@code message} (null for a resubscription), which came at {@code nanos}, dropping the oldest if full. */
    void heard(long nanos, @Nullable String message) {
        if (recent.size() == CAPACITY) {
            forgottenNanos = recent.removeFirst().nanos();
        }
        recent.addLast(new Heard(nanos, message));
    }

    /** Every message that came at or after {@code sinceNanos}, or {@link Missed#UNKNOWN} if one of those was dropped. */
    Missed since(long sinceNanos) {
        if (forgottenNanos != null && forgottenNanos - sinceNanos >= 0) {
            return Missed.UNKNOWN;
        }
        List<@Nullable String> missed = new ArrayList<>(0);
        for (Heard heard : recent) {
            if (heard.nanos() - sinceNanos >= 0) {
                missed.add(heard.message());
            }
        }
        return missed.isEmpty() ? Missed.NONE : new Missed(missed, false);
    }

    /** The grant naming {@code owner} among the messages that came at or after {@code sinceNanos}, if it is still kept. */
    Missed grantTo(String owner, long sinceNanos) {
        for (Heard heard : recent) {
            String message = heard.message();
            if (heard.nanos() - sinceNanos >= 0
                    && message != null
                    && GrantOrder.isGrant(message)
                    && GrantOrder.names(message, owner)) {
                return new Missed(List.of(message), false);
            }
        }
        return Missed.NONE;
    }
}
