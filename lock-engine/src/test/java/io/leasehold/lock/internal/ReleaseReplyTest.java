package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The one rule for reading a release's answer after a send of unknown outcome. */
class ReleaseReplyTest {

    @Test
    void shouldTakeTheAnswerOfAFirstSendAsItIs() {
        for (boolean handoff : new boolean[] {false, true}) {
            for (long code : new long[] {ReleaseReply.DELETED, ReleaseReply.ABSENT, ReleaseReply.OTHER_OWNER}) {
                assertEquals(new ReleaseReply(code, false, 7), ReleaseReply.answered(code, false, handoff, 7));
            }
        }
    }

    @Test
    void shouldCountAbsentAsDeletedAfterASendOfUnknownOutcome() {
        assertEquals(
                new ReleaseReply(ReleaseReply.DELETED, false, 7),
                ReleaseReply.answered(ReleaseReply.ABSENT, true, false, 7));
        assertEquals(
                new ReleaseReply(ReleaseReply.DELETED, false, 7),
                ReleaseReply.answered(ReleaseReply.ABSENT, true, true, 7));
    }

    @Test
    void shouldCallAnotherOwnerInconclusiveAfterAnUnknownPlainReleaseButALossAfterAnUnknownHandoff() {
        assertEquals(
                new ReleaseReply(ReleaseReply.OTHER_OWNER, true, 7),
                ReleaseReply.answered(ReleaseReply.OTHER_OWNER, true, false, 7));
        assertEquals(
                new ReleaseReply(ReleaseReply.OTHER_OWNER, false, 7),
                ReleaseReply.answered(ReleaseReply.OTHER_OWNER, true, true, 7),
                "a handoff's yield marker tells an earlier yield apart: another owner without it is a loss");
    }
}
