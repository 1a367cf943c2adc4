package io.leasehold.lock.quorum;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The tickets this quorum client chose for its fair waiters (docs/design/quorum-locks.md, "Waiting"):
 * a waiter's first phase 1 takes a place on every member with that member's ticket (its clock, after
 * the last ticket there); the largest of the tickets the members answered becomes the waiter's ticket,
 * sent with each of its later attempts, so that every member orders that waiter alike (ties by waiter
 * id). A waiter whose ticket is on a majority is ahead of every waiter whose first call came after:
 * that call meets the ticket on at least one member and gets a later ticket there.
 *
 * <p>A waiter's ticket is forgotten once it has not asked for {@value #FORGET_AFTER_MS} ms (it was
 * granted, gave up, or its client went away; its places lapsed long before), not at its grant: the
 * engine may give up on an attempt that was granted (its short wait for a fair attempt's reply ran
 * out), and the waiter's next attempt must still come with its ticket, not join at the back.
 *
 * <p>This class is threadsafe; it never blocks.
 */
final class FairTickets {

    /** How long a ticket is kept after its waiter's last attempt: far beyond a waiter's place (1.5 s). */
    static final long FORGET_AFTER_MS = 10_000;

    private record Ticket(long value, long usedNanos) {}

    private final Map<String, Ticket> byWaiter = new ConcurrentHashMap<>();
    private volatile long lastPurgeNanos = System.nanoTime();

    /** The ticket chosen for {@code waiter}, as quorum-fair-acquire.lua's ARGV[6] takes it: '' if none yet. */
    String of(String waiter) {
        Ticket ticket = byWaiter.computeIfPresent(waiter, (w, t) -> new Ticket(t.value(), System.nanoTime()));
        return ticket == null ? "" : Long.toString(ticket.value());
    }

    /**
     * {@code waiter}'s phase 1 ended without a grant: unless it has a ticket, it gets the largest of the
     * tickets in the members' contended replies ({@code {0, token, ttl, place, ticket}}); nothing if
     * none named one.
     */
    void notGranted(String waiter, List<Tally.Answer> phase1) {
        purgeNowAndThen();
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
        if (largest > 0) {
            long chosen = largest;
            byWaiter.computeIfAbsent(waiter, w -> new Ticket(chosen, System.nanoTime()));
        }
    }

    /** How many waiters have a ticket: for tests. */
    int size() {
        return byWaiter.size();
    }

    private void purgeNowAndThen() {
        long now = System.nanoTime();
        if (now - lastPurgeNanos < TimeUnit.SECONDS.toNanos(1)) {
            return;
        }
        lastPurgeNanos = now;
        long forgetBefore = now - TimeUnit.MILLISECONDS.toNanos(FORGET_AFTER_MS);
        byWaiter.values().removeIf(t -> t.usedNanos() - forgetBefore < 0);
    }
}
