package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The chaos tests' checks can fail: they see two holders, falling tokens and unsettled acquisitions. */
class ChaosHarnessTest {

    @Test
    void shouldRecordTwoHoldersAtOnceAndATokenThatDoesNotRise() {
        ExclusiveSection section = new ExclusiveSection();
        section.enter(10);
        section.leave();
        assertEquals(List.of(), section.violations(), "one holder with a first token");
        section.enter(12);
        section.enter(11);
        assertEquals(
                List.of("two holders at once: 2 with token 11", "token 11 not above the last holder's 12"),
                section.violations());
    }

    @Test
    void shouldBeSettledOnlyWhenEveryStartedAcquisitionReportedOneOutcomeAndEveryWaitEnded() {
        AcquisitionEventTally tally = new AcquisitionEventTally();
        tally.acquisitionStarted();
        tally.acquisitionStarted();
        tally.onWaitStarted("orders:42");
        tally.onAcquired("orders:42", 1, Duration.ZERO);
        assertFalse(tally.settled(), "one acquisition has no outcome yet");
        tally.onAcquireCancelled("orders:42", Duration.ZERO);
        assertFalse(tally.settled(), "a wait started and did not end");
        tally.onWaitEnded("orders:42", Duration.ZERO);
        assertTrue(tally.settled());
        tally.onWaitEnded("orders:42", Duration.ZERO);
        assertEquals(List.of("wait ended before it started"), tally.oddities());
    }
}
