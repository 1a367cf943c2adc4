package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** FairWaiters: a waiter's ticket is the largest its members answered, chosen once; who leaves on a release. */
class FairWaitersTest {

    private static final String WAITER = "0123456789abcdef0123456789abcdef";

    private static Tally.Answer contended(int member, long ticket) {
        return new Tally.Answer(member, List.of(0L, "7", 300L, 1L, Long.toString(ticket)), null);
    }

    @Test
    void shouldChooseTheLargestTicketOfTheContendedRepliesAndKeepIt() {
        FairWaiters waiters = new FairWaiters();
        assertEquals("", waiters.attempt(WAITER, "owner-1"), "no ticket before its first phase 1");

        waiters.notGranted(
                WAITER,
                List.of(
                        contended(0, 1_700_000_000_000_100L),
                        new Tally.Answer(1, null, new IOException("member 1 down")),
                        contended(2, 1_700_000_000_000_900L)));
        assertEquals("1700000000000900", waiters.attempt(WAITER, "owner-2"));

        // a later phase 1 (its places re-scored to that ticket, one member far ahead) changes nothing
        waiters.notGranted(WAITER, List.of(contended(0, 1_700_000_000_000_900L), contended(1, 1_800_000_000_000_000L)));
        assertEquals("1700000000000900", waiters.attempt(WAITER, "owner-3"));
    }

    @Test
    void shouldChooseNoTicketFromGrantsFailuresOrRepliesWithoutOne() {
        FairWaiters waiters = new FairWaiters();
        waiters.attempt(WAITER, "owner-1");
        waiters.notGranted(
                WAITER,
                List.of(
                        new Tally.Answer(0, List.of(1L, "9", 30_000L), null),
                        new Tally.Answer(1, null, new IOException("member 1 down")),
                        new Tally.Answer(2, List.of(0L, "7", 300L, 0L), null)));
        assertEquals(0, waiters.ticketOf(WAITER));
    }

    @Test
    void shouldNameTheWaiterOfItsLatestAttemptOnlyUntilThatAttemptIsGranted() {
        FairWaiters waiters = new FairWaiters();
        waiters.attempt(WAITER, "owner-1");
        waiters.attempt(WAITER, "owner-2");
        assertNull(waiters.leaving("owner-1"), "an earlier attempt's release (the wait goes on) leaves no place");
        assertEquals(WAITER, waiters.leaving("owner-2"), "the latest attempt's release is the waiter's clean-up");

        waiters.granted("owner-2");
        assertNull(waiters.leaving("owner-2"), "the holder's release leaves nothing");
        assertEquals(1, waiters.size(), "the waiter is kept (an attempt the engine gave up on may have been granted)");
    }

    @Test
    void shouldNameTheWaiterWhosePlacesAGrantTakesOutOnlyWhenItsLatestAttemptWasGranted() {
        FairWaiters waiters = new FairWaiters();
        waiters.attempt(WAITER, "owner-1");
        waiters.attempt(WAITER, "owner-2"); // the engine cut owner-1 short and asked again

        assertNull(waiters.granted("owner-1"), "owner-2's call keeps the places: no leave for owner-1's grant");
        assertEquals(WAITER, waiters.granted("owner-2"), "the latest attempt granted: its places go");
        assertNull(waiters.granted("owner-2"), "once");
        assertNull(waiters.granted("unknown"));
    }
}
