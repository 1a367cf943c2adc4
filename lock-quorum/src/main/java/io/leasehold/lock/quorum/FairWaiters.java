package io.leasehold.lock.quorum;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * This quorum client's fair waiters (docs/design/quorum-locks.md, "Waiting"): the ticket it chose for
 * each, and the owner of each one's latest attempt.
 *
 * <p><b>Tickets.</b> A waiter's first phase 1 takes a place on every member with that member's ticket
 * (its clock, after the last ticket there); the largest of the tickets the members answered becomes
 * the waiter's ticket, sent with each of its later attempts, so that every member orders that waiter
 * alike (ties by waiter id). A waiter whose ticket is on a majority is ahead of every waiter whose
 * first call came after: that call meets the ticket on at least one member and gets a later ticket
 * there.
 *
 * <p><b>Leaving.</b> The engine cleans up a waiter that gave up (timed out, cancelled, its client
 * closed) by releasing its latest attempt's owner; {@link #leaving} tells the release which waiter
 * that owner stands for, so that its places are taken out at once, not left to lapse. A granted
 * attempt's owner stands for no waiter any more: the holder's release leaves nothing.
 *
 * <p>A waiter is forgotten once it has not asked for {@value #FORGET_AFTER_MS} ms (it was granted,
 * gave up, or its client went away; its places lapsed long before), not at its grant: the engine may
 * give up on an attempt that was granted (its short wait for a fair attempt's reply ran out), and the
 * waiter's next attempt must still come with its ticket, not join at the back.
 *
 * <p>This class is threadsafe: one lock, held for a map operation or a purge; it never blocks.
 */
final class FairWaiters {

    /** How long a waiter is kept after its last attempt: far beyond a waiter's place (1.5 s). */
    static final long FORGET_AFTER_MS = 10_000;

    /** A waiter's ticket (0 until chosen), its latest attempt's owner (null once granted), its last use. */
    private record Waiter(long ticket, @Nullable String latestOwner, long usedNanos) {}

    private final Map<String, Waiter> byWaiter = new HashMap<>();
    /** The owner of each waiter's latest attempt, while that attempt may still be the waiter's last. */
    private final Map<String, String> waiterOfOwner = new HashMap<>();

    private long lastPurgeNanos = System.nanoTime();

    /**
     * {@code waiter} makes an attempt with {@code owner}: its ticket, as quorum-fair-acquire.lua's
     * ARGV[6] takes it ('' if none was chosen yet).
     */
    synchronized String attempt(String waiter, String owner) {
        purgeNowAndThen();
        Waiter before = byWaiter.get(waiter);
        if (before != null && before.latestOwner() != null) {
            waiterOfOwner.remove(before.latestOwner());
        }
        long ticket = before == null ? 0 : before.ticket();
        byWaiter.put(waiter, new Waiter(ticket, owner, System.nanoTime()));
        waiterOfOwner.put(owner, waiter);
        return ticket == 0 ? "" : Long.toString(ticket);
    }

    /**
     * {@code waiter}'s phase 1 ended without a grant: unless it has a ticket, it gets the largest of the
     * tickets in the members' contended replies ({@code {0, token, ttl, place, ticket}}); nothing if
     * none named one.
     */
    void notGranted(String waiter, List<Tally.Answer> phase1) {
        long largest = 0;
        for (Tally.Answer a : phase1) {
            if (a.failed() || Replies.status(a.reply(), 1) != 0) {
                continue;
            }
            List<?> reply = Replies.list(a.reply(), "quorum-fair-acquire");
            if (reply.size() >= 5) {
                largest = Math.max(largest, Replies.asLong(reply.get(4), "quorum-fair-acquire"));
            }
        }
        if (largest == 0) {
            return;
        }
        synchronized (this) {
            Waiter w = byWaiter.get(waiter);
            if (w != null && w.ticket() == 0) {
                byWaiter.put(waiter, new Waiter(largest, w.latestOwner(), w.usedNanos()));
            }
        }
    }

    /**
     * {@code owner}'s attempt was granted: a release of that owner is a holder's, and leaves no place.
     * The waiter it was made for when it was that waiter's latest attempt, whose places the quorum then
     * takes out (its grants kept them); null otherwise: the waiter made a later attempt (the engine cut
     * this one short), which keeps its places until it is granted itself, and a leave now could land
     * after that attempt's call on a member and leave the waiter without a place there.
     */
    synchronized @Nullable String granted(String owner) {
        String waiter = waiterOfOwner.remove(owner);
        Waiter w = waiter == null ? null : byWaiter.get(waiter);
        if (w != null && owner.equals(w.latestOwner())) {
            byWaiter.put(waiter, new Waiter(w.ticket(), null, w.usedNanos()));
            return waiter;
        }
        return null;
    }

    /**
     * The waiter whose latest attempt {@code owner} made, if it was not granted: a release of that owner
     * is the waiter's clean-up, and its places are taken out. Null for any other owner.
     */
    synchronized @Nullable String leaving(String owner) {
        return waiterOfOwner.get(owner);
    }

    /** The ticket chosen for {@code waiter}, or 0: for tests. */
    synchronized long ticketOf(String waiter) {
        Waiter w = byWaiter.get(waiter);
        return w == null ? 0 : w.ticket();
    }

    /** How many waiters are kept: for tests. */
    synchronized int size() {
        return byWaiter.size();
    }

    private void purgeNowAndThen() {
        long now = System.nanoTime();
        if (now - lastPurgeNanos < TimeUnit.SECONDS.toNanos(1)) {
            return;
        }
        lastPurgeNanos = now;
        long forgetBefore = now - TimeUnit.MILLISECONDS.toNanos(FORGET_AFTER_MS);
        byWaiter.values().removeIf(w -> {
            boolean forget = w.usedNanos() - forgetBefore < 0;
            if (forget && w.latestOwner() != null) {
                waiterOfOwner.remove(w.latestOwner());
            }
            return forget;
        });
    }
}
