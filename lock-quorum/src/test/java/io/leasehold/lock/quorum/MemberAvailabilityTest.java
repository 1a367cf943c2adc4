package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A member skipped after a transient failure, probed by one call once the skip is over. */
class MemberAvailabilityTest {

    private static final long SKIP = MemberAvailability.SKIP_NANOS;

    private final MemberAvailability availability = new MemberAvailability(3);

    @Test
    void shouldLetEveryCallThroughWhileAMemberAnswers() {
        assertTrue(availability.admit(0, 0));
        assertTrue(availability.admit(0, 1));
        assertEquals(0, availability.skippedForMs(0, 1));
    }

    @Test
    void shouldSkipAMemberAfterATransientFailureUntilTheSkipIsOver() {
        availability.failed(1, 100);

        assertFalse(availability.admit(1, 100 + SKIP - 1), "skipped");
        assertTrue(availability.admit(0, 100), "the others are not");
        assertEquals(1_000, availability.skippedForMs(1, 100));
        assertTrue(availability.admit(1, 100 + SKIP), "probed once the skip is over");
    }

    @Test
    void shouldLetOneProbeThroughAndSkipTheRestUntilItAnswers() {
        availability.failed(2, 0);

        assertTrue(availability.admit(2, SKIP), "the probe");
        assertFalse(availability.admit(2, SKIP + 1), "while the probe is out");
        availability.answered(2);
        assertTrue(availability.admit(2, SKIP + 2), "answering again");
    }

    @Test
    void shouldSkipAgainWhenTheProbeFails() {
        availability.failed(0, 0);
        assertTrue(availability.admit(0, SKIP));

        availability.failed(0, SKIP + 5);

        assertFalse(availability.admit(0, 2 * SKIP));
        assertTrue(availability.admit(0, 2 * SKIP + 5));
    }
}
