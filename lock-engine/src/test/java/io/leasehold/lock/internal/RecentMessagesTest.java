package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a joining waiter is told of the release messages it missed: those kept since its attempt was
 * sent, or that it cannot know, when one of them may be missing (dropped for room, or published
 * before the subscription was active): then it asks.
 */
class RecentMessagesTest {

    private static final String MINE = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    private static final String OTHERS = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    private final RecentMessages recent = new RecentMessages();

    @Test
    void shouldHandAJoiningWaiterTheMessagesSinceItsAttemptWasSent() {
        recent.heard(10, "released");
        recent.heard(20, grant(OTHERS));
        recent.heard(30, grant(MINE));

        assertEquals(List.of(grant(OTHERS), grant(MINE)), recent.since(20).messages());
        assertEquals(List.of(grant(MINE)), recent.grantTo(MINE, 20).messages());
        assertEquals(RecentMessages.Missed.NONE, recent.grantTo(MINE, 31));
    }

    @Test
    void shouldTellAWaiterBehindTheHeadThatItCannotKnowWhenAMessageSinceItsSendWasDropped() {
        for (int i = 0; i <= RecentMessages.CAPACITY; i++) { // one more than it keeps: the first is dropped
            recent.heard(100 + i, grant(OTHERS));
        }

        assertEquals(RecentMessages.Missed.UNKNOWN, recent.grantTo(MINE, 100), "the dropped one came at its send");
        assertEquals(RecentMessages.Missed.UNKNOWN, recent.since(100));
        assertEquals(RecentMessages.Missed.NONE, recent.grantTo(MINE, 101), "all since are kept: none names it");
    }

    @Test
    void shouldTellAWaiterWhoseAttemptWasSentBeforeTheSubscriptionWasActiveThatItCannotKnow() {
        recent.unheardBefore(50);

        assertEquals(RecentMessages.Missed.UNKNOWN, recent.since(49));
        assertEquals(RecentMessages.Missed.UNKNOWN, recent.grantTo(MINE, 49));
        assertEquals(RecentMessages.Missed.NONE, recent.since(50), "sent as it became active: heard all");
        assertEquals(RecentMessages.Missed.NONE, recent.grantTo(MINE, 50));
    }

    private static String grant(String owner) {
        return "granted " + owner + " 1795842846101474";
    }
}
