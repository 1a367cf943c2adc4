package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The validity rules under commands of unknown outcome: a lease never counts on more time than the
 * last command Redis may have run gives it (G4).
 */
class LeaseValidityTest {

    private static final long LEASE_MS = 30_000;
    private static final long T0 = 1_000_000_000L;

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    private static long capOf(long sentNanos, long leaseMs) {
        return Validity.validUntil(sentNanos, leaseMs);
    }

    @Test
    void shouldCountFromTheAcquireSendTimeMinusDrift() {
        LeaseValidity validity = new LeaseValidity(T0, LEASE_MS);

        assertEquals(T0 + ms(LEASE_MS) - Validity.driftNanos(LEASE_MS), validity.until());
    }

    @Test
    void shouldLowerTheDeadlineAsSoonAsAShorterExtendIsSent() {
        LeaseValidity validity = new LeaseValidity(T0, LEASE_MS);

        validity.begin(T0 + ms(100), 2_000);

        assertEquals(capOf(T0 + ms(100), 2_000), validity.until());
    }

    @Test
    void shouldKeepTheShorterDeadlineWhenTheExtendsReplyIsLost() {
        LeaseValidity validity = new LeaseValidity(T0, LEASE_MS);
        long extend = validity.begin(T0 + ms(100), 2_000);

        validity.failed(extend);

        assertEquals(capOf(T0 + ms(100), 2_000), validity.until());
    }

    @Test
    void shouldLiftTheDeadlineWhenARenewalSentAfterTheLostExtendIsConfirmed() {
        LeaseValidity validity = new LeaseValidity(T0, LEASE_MS);
        long extend = validity.begin(T0 + ms(100), 2_000);
        validity.failed(extend);
        long renewal = validity.begin(T0 + ms(500), LEASE_MS);

        validity.confirmed(renewal, false);

        assertEquals(capOf(T0 + ms(500), LEASE_MS), validity.until());
    }

    @Test
    void shouldNotLetARenewalSentBeforeAnInFlightExtendLiftTheDeadline() {
        LeaseValidity validity = new LeaseValidity(T0, LEASE_MS);
        long renewal = validity.begin(T0 + ms(100), LEASE_MS);
        validity.begin(T0 + ms(200), 2_000); // an extend, in flight: Redis may run it after the renewal

        validity.confirmed(renewal, false);

        assertEquals(capOf(T0 + ms(200), 2_000), validity.until());
    }

    @Test
    void shouldIgnoreAConfirmationOfACommandSentBeforeTheLatestConfirmedOne() {
        LeaseValidity validity = new LeaseValidity(T0, LEASE_MS);
        long longer = validity.begin(T0 + ms(100), LEASE_MS);
        long shorter = validity.begin(T0 + ms(200), 2_000);
        validity.confirmed(shorter, false); // ran last: its TTL is the one in force

        validity.confirmed(longer, false);

        assertEquals(capOf(T0 + ms(200), 2_000), validity.until());
    }

    @Test
    void shouldForgetACommandThatRedisRefusedAsSuperseded() {
        LeaseValidity validity = new LeaseValidity(T0, LEASE_MS);
        long extend = validity.begin(T0 + ms(100), 2_000);

        validity.superseded(extend);

        assertEquals(capOf(T0, LEASE_MS), validity.until());
    }

    @Test
    void shouldKeepTheTtlOfTheHigherNumberedCommandWhenTheyReachRedisOutOfOrder() {
        // Two extends race: the longer one took its number first, but the shorter one reached Redis
        // first and was applied; the longer one then arrives and is refused as superseded.
        LeaseValidity validity = new LeaseValidity(T0, LEASE_MS);
        long longer = validity.begin(T0 + ms(100), 60_000);
        long shorter = validity.begin(T0 + ms(101), 1_000);

        validity.confirmed(shorter, false);
        validity.superseded(longer);

        assertEquals(capOf(T0 + ms(101), 1_000), validity.until());
    }
}
