package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** FairTickets: a waiter's ticket is the largest its members answered, chosen once. */
class FairTicketsTest {

    private static final String WAITER = "0123456789abcdef0123456789abcdef";

    private static Tally.Answer contended(int member, long ticket) {
        return new Tally.Answer(member, List.of(0L, "7", 300L, 1L, Long.toString(ticket)), null);
    }

    @Test
    void shouldChooseTheLargestTicketOfTheContendedRepliesAndKeepIt() {
        FairTickets tickets = new FairTickets();
        assertEquals("", tickets.of(WAITER), "no ticket before its first phase 1");

        tickets.notGranted(
                WAITER,
                List.of(
                        contended(0, 1_700_000_000_000_100L),
                        new Tally.Answer(1, null, new IOException("member 1 down")),
                        contended(2, 1_700_000_000_000_900L)));
        assertEquals("1700000000000900", tickets.of(WAITER));

        // a later phase 1 (its places re-scored to that ticket, one member far ahead) changes nothing
        tickets.notGranted(WAITER, List.of(contended(0, 1_700_000_000_000_900L), contended(1, 1_800_000_000_000_000L)));
        assertEquals("1700000000000900", tickets.of(WAITER));
    }

    @Test
    void shouldChooseNoTicketFromGrantsFailuresOrRepliesWithoutOne() {
        FairTickets tickets = new FairTickets();
        tickets.notGranted(
                WAITER,
                List.of(
                        new Tally.Answer(0, List.of(1L, "9", 30_000L), null),
                        new Tally.Answer(1, null, new IOException("member 1 down")),
                        new Tally.Answer(2, List.of(0L, "7", 300L, 0L), null)));
        assertEquals("", tickets.of(WAITER));
        assertEquals(0, tickets.size());
    }
}
