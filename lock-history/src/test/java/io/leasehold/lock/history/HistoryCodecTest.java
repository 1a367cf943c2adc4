package io.leasehold.lock.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.leasehold.lock.LeaseLoss;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryCodecTest {

    /** One record of every type, with every optional field both present and absent somewhere. */
    static final List<HistoryEvent> EVERY_TYPE = List.of(
            new ProcessStarted("w1", 1_764_072_000_000_000L),
            AcquireAttempt.acquired("w1", "orders:42", 10, 20, Long.MAX_VALUE),
            AcquireAttempt.failed(
                    "w1", "orders:42", 30, 40, AcquireOutcome.ERROR, "LockBackendException: \"refused\"\n"),
            AcquireAttempt.failed("w1", "orders:42", 30, 40, AcquireOutcome.TIMEOUT, null),
            new SectionStarted("w1", "orders:42", 17, 21),
            new ResourceAccess(
                    "w1", "orders:42", "stock", AccessOp.READ, 17, AccessOutcome.ACCEPTED, -3L, 8L, 22, 23, null),
            new ResourceAccess(
                    "w1", "orders:42", "stock", AccessOp.WRITE, 17, AccessOutcome.UNKNOWN, 4L, null, 24, 25, "timeout"),
            new LossSignal("w1", "orders:42", 17, "STOLEN", 26, 27),
            new SectionEnded("w1", "orders:42", 17, 28, SectionEnding.NOT_HELD),
            new FaultWindow("nemesis", "sigstop", FaultEffect.PAUSE, "w1", 29, 30),
            new FaultWindow("nemesis", "partition", FaultEffect.OTHER, null, 29, 30),
            new ResourceState("runner", "stock", 5, 17L, 9, 31),
            new ResourceState("runner", "empty", 0, null, 0, 31),
            new ResourceUpdate("runner", "stock", 9, 17, 4, 5, 32),
            new ProcessEnded("w1", 33));

    @Test
    void shouldReadBackEveryRecordTypeItWrites() {
        for (HistoryEvent event : EVERY_TYPE) {
            assertEquals(event, HistoryCodec.decode(HistoryCodec.encode(event)));
        }
    }

    @Test
    void shouldWriteOneLineWithTokensAsStringsAndLeaveAbsentFieldsOut() {
        assertEquals(
                "{\"type\":\"acquire\",\"process\":\"w1\",\"lock\":\"orders:42\",\"start\":10,\"end\":20,"
                        + "\"outcome\":\"ACQUIRED\",\"token\":\"9223372036854775807\"}",
                HistoryCodec.encode(EVERY_TYPE.get(1)));
        assertEquals(
                "{\"type\":\"acquire\",\"process\":\"w1\",\"lock\":\"orders:42\",\"start\":30,\"end\":40,"
                        + "\"outcome\":\"ERROR\",\"error\":\"LockBackendException: \\\"refused\\\"\\n\"}",
                HistoryCodec.encode(EVERY_TYPE.get(2)));
    }

    @Test
    void shouldAcceptIntegerTokensAndIgnoreFieldsItDoesNotKnow() {
        HistoryEvent event = HistoryCodec.decode("{\"process\":\"w1\",\"type\":\"section-start\",\"lock\":\"L\","
                + "\"token\":17,\"time\":21,\"host\":\"a\",\"extra\":{\"nested\":[1,2]}}");
        assertEquals(new SectionStarted("w1", "L", 17, 21), event);
    }

    @Test
    void shouldTurnALeaseLossIntoASignalOnTheHistoryClock() {
        Instant detected = Instant.parse("2026-11-25T12:00:00.123456789Z");
        LossSignal signal = LossSignal.of("w1", new LeaseLoss("L", 5, LeaseLoss.Reason.EXPIRED, detected, null));

        assertEquals(HistoryClock.micros(detected), signal.time());
        assertEquals(1_795_608_000_123_456L, signal.time());
        assertEquals("EXPIRED", signal.reason());
        assertEquals(detected.minusNanos(789), HistoryClock.instant(signal.time()));
    }

    @Test
    void shouldRejectLinesThatAreNotOneValidRecordNamingTheFieldAndTheRule() {
        assertEquals("not valid JSON at line 1 column 3 path $.", message("{type:1}"));
        assertEquals("a line must hold exactly one JSON object, but more follows it", message("{\"type\":\"x\"} {}"));
        assertEquals("a line must hold one JSON object, but was [1]", message("[1]"));
        assertEquals(
                "a record must have a string field 'type', but this one has none", message("{\"process\":\"w1\"}"));
        assertEquals(
                "unknown record type 'lock'; known types: process-start, process-end, acquire, section-start, access,"
                        + " loss, section-end, fault, resource-state, resource-update",
                message("{\"type\":\"lock\"}"));
        assertEquals(
                "field 'time' of a 'process-start' record is required (an integer), but is missing",
                message("{\"type\":\"process-start\",\"process\":\"w1\"}"));
        assertEquals(
                "field 'time' of a 'process-start' record must be an integer, but was \"soon\"",
                message("{\"type\":\"process-start\",\"process\":\"w1\",\"time\":\"soon\"}"));
        assertEquals(
                "field 'time' of a 'process-start' record must be an integer that fits in 64 bits, but was 1.5",
                message("{\"type\":\"process-start\",\"process\":\"w1\",\"time\":1.5}"));
        assertEquals(
                "field 'token' of a 'section-start' record must be a token (decimal string), but was \"x17\"",
                message("{\"type\":\"section-start\",\"process\":\"w1\",\"lock\":\"L\",\"token\":\"x17\",\"time\":1}"));
        assertEquals(
                "field 'outcome' of a 'acquire' record must be one of [ACQUIRED, TIMEOUT, ERROR, CANCELLED], but was 'WON'",
                message(
                        "{\"type\":\"acquire\",\"process\":\"w1\",\"lock\":\"L\",\"start\":1,\"end\":2,\"outcome\":\"WON\"}"));
        assertEquals(
                "invalid 'acquire' record: acquire.end must not be before its start (5), but was 2",
                message(
                        "{\"type\":\"acquire\",\"process\":\"w1\",\"lock\":\"L\",\"start\":5,\"end\":2,\"outcome\":\"TIMEOUT\"}"));
        assertEquals(
                "invalid 'fault' record: fault.target must not be blank, but was ' '",
                message(
                        "{\"type\":\"fault\",\"process\":\"n\",\"kind\":\"kill\",\"effect\":\"KILL\",\"target\":\" \",\"start\":1,\"end\":1}"));
    }

    @Test
    void shouldCheckRecordsWhenTheyAreMadeInCode() {
        IllegalArgumentException token = assertThrows(
                IllegalArgumentException.class,
                () -> AcquireAttempt.failed("w1", "L", 1, 2, AcquireOutcome.ACQUIRED, null));
        assertEquals(
                "acquire.token must be given exactly when the outcome is ACQUIRED, but was null with outcome ACQUIRED",
                token.getMessage());
        IllegalArgumentException negative =
                assertThrows(IllegalArgumentException.class, () -> new SectionStarted("w1", "L", -1, 2));
        assertEquals("section-start.token must be >= 0, but was -1", negative.getMessage());
        NullPointerException target = assertThrows(
                NullPointerException.class, () -> new FaultWindow("n", "kill", FaultEffect.KILL, null, 1, 1));
        assertEquals("fault.target", target.getMessage());
    }

    private static String message(String line) {
        return assertThrows(HistoryFormatException.class, () -> HistoryCodec.decode(line))
                .getMessage();
    }
}
