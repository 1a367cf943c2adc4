package io.leasehold.lock.history.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.history.AccessOp;
import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.AcquireOutcome;
import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.ResourceUpdate;
import io.leasehold.lock.history.SectionEnding;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The checker fed histories with one planted fault each: it must report that fault, and a clean run must pass. */
class HistoryCheckerTest {

    private static CheckReport check(RunBuilder run) {
        return HistoryChecker.check(run.history());
    }

    private static List<ViolationKind> kinds(CheckReport report) {
        return report.violations().stream()
                .map(Violation::kind)
                .distinct()
                .sorted()
                .collect(Collectors.toList());
    }

    /** Two workers taking turns, ten healthy sections, the resource's snapshot at the end. */
    private static RunBuilder cleanRun() {
        RunBuilder run = new RunBuilder().started("w1", 0).started("w2", 0);
        long time = 100;
        for (int i = 0; i < 10; i++) {
            run.section(i % 2 == 0 ? "w1" : "w2", 1000 + i, time);
            time += 100;
        }
        return run.ended("w1", time).ended("w2", time).snapshot(time + 1);
    }

    /**
     * w1 (token 1) reads, then w2 (token 2) acquires at 180..198 and reads at 210 while w1's section still runs;
     * w1's late write at 230 is rejected by the resource, and its release finds the lock gone (NOT_HELD at 260).
     * Whether this overlap is allowed depends on what {@code plant} adds.
     */
    private static RunBuilder overlapRun(java.util.function.Consumer<RunBuilder> plant, boolean brokenResource) {
        RunBuilder run = new RunBuilder().started("w1", 0).started("w2", 0);
        run.acquired("w1", 1, 80, 98).sectionStart("w1", 1, 100).read("w1", 1, 110);
        run.acquired("w2", 2, 180, 198).sectionStart("w2", 2, 200).read("w2", 2, 210);
        if (brokenResource) {
            run.brokenWrite("w1", 1, 1, 230);
        } else {
            run.write("w1", 1, 1, 230);
        }
        run.sectionEnd("w1", 1, 260, SectionEnding.NOT_HELD);
        run.write("w2", 2, run.value() + 1, 240).sectionEnd("w2", 2, 300, SectionEnding.RELEASED);
        plant.accept(run);
        return run.ended("w1", 400).ended("w2", 400);
    }

    @Test
    void shouldPassACleanRunAndReportItsProgress() {
        CheckReport report = check(cleanRun());

        assertTrue(report.passed(), report.summary());
        assertTrue(report.safe());
        assertEquals(List.of(), report.overlaps());
        assertEquals(List.of(), report.notes());
        // Its longest silence: from its last section's end (960) to its process-end (1100).
        ProcessProgress w1 = report.progress().get("w1");
        assertEquals(new ProcessProgress("w1", 5, 5, 0, 0, 0, 5, 10, 0, 0, 0, 140, true), w1);
        assertEquals(2, report.progress().size(), "the runner that copied the snapshot is not a worker");
        assertTrue(
                report.summary().startsWith("Leasehold history check: PASSED (0 violation(s), 0 overlap(s))"),
                report.summary());
    }

    @Test
    void shouldReportAnOverlapWhoseEarlierHolderWasNotToldInTimeOutsideAnyDataLoss() {
        CheckReport report = check(overlapRun(run -> {}, false));

        assertEquals(List.of(ViolationKind.UNTOLD_OVERLAP), kinds(report), report.summary());
        Overlap overlap = report.overlaps().get(0);
        assertEquals(OverlapKind.UNTOLD, overlap.kind());
        assertEquals("w1", overlap.earlier().process());
        assertEquals("w2", overlap.later().process());
        assertEquals(200, overlap.from());
        assertEquals(260, overlap.to());
        assertEquals(260L, overlap.earlier().toldAt(), "told only by its failed release");
        assertTrue(
                report.violations().get(0).message().contains("w1 token 1 [100..260] and w2 token 2 [200..300]"),
                report.violations().get(0).message());
        assertFalse(report.passed());
        assertFalse(report.safe());
    }

    @Test
    void shouldAllowButStillListAnOverlapWhoseEarlierHolderWasToldBeforeTheLaterBegan() {
        CheckReport report = check(overlapRun(run -> run.loss("w1", 1, 150), false));

        assertTrue(report.passed(), report.summary());
        assertEquals(1, report.overlaps(OverlapKind.TOLD_BEFORE).size());
        assertEquals(150L, report.overlaps().get(0).earlier().toldAt());
    }

    @Test
    void shouldAllowAnUntoldOverlapWithinADeclaredDataLossWhenTheStaleHolderWasToldAfterAndRejected() {
        CheckReport report = check(overlapRun(
                run -> run.fault("restart-without-persistence", FaultEffect.DATA_LOSS, null, 150, 170), false));

        assertTrue(report.passed(), report.summary());
        Overlap overlap = report.overlaps().get(0);
        assertEquals(OverlapKind.DATA_LOSS, overlap.kind());
        assertTrue(overlap.explanation().contains("restart-without-persistence"), overlap.explanation());
    }

    @Test
    void shouldTakeDataLossWindowsGivenToTheCheckerAsWellAsDeclaredOnes() {
        RunBuilder run = overlapRun(r -> {}, false);

        CheckReport report = HistoryChecker.check(
                run.history(),
                CheckOptions.builder().dataLoss(new TimeWindow(150, 170)).build());

        assertTrue(report.passed(), report.summary());
        assertEquals(1, report.overlaps(OverlapKind.DATA_LOSS).size());
    }

    @Test
    void shouldNotExcuseAnOverlapByADataLossThatEndedBeforeTheEarlierAcquireBegan() {
        CheckReport report = check(overlapRun(run -> run.fault("flush", FaultEffect.DATA_LOSS, null, 10, 70), false));

        assertEquals(List.of(ViolationKind.UNTOLD_OVERLAP), kinds(report), report.summary());
    }

    @Test
    void shouldDemandThatTheStaleHolderOfADataLossOverlapIsToldEvenIfOnlyAfterwards() {
        RunBuilder run = new RunBuilder().started("w1", 0).started("w2", 0);
        run.acquired("w1", 1, 80, 98).sectionStart("w1", 1, 100).read("w1", 1, 110);
        run.fault("failover", FaultEffect.DATA_LOSS, null, 150, 170);
        run.acquired("w2", 2, 180, 198).sectionStart("w2", 2, 200).read("w2", 2, 210);
        run.sectionEnd("w1", 1, 260, SectionEnding.RELEASED).sectionEnd("w2", 2, 300, SectionEnding.RELEASED);
        run.ended("w1", 400).ended("w2", 400);

        CheckReport report = check(run);

        assertEquals(List.of(ViolationKind.HOLDER_NEVER_TOLD), kinds(report), report.summary());
        assertEquals(1, report.overlaps(OverlapKind.DATA_LOSS).size(), "listed with its kind all the same");
    }

    @Test
    void shouldReportAStaleHoldersAccessAcceptedAfterTheNewHoldersFirstAccessInADataLossOverlap() {
        CheckReport report = check(overlapRun(run -> run.fault("failover", FaultEffect.DATA_LOSS, null, 150, 170), true)
                .snapshot(500));

        List<ViolationKind> kinds = kinds(report);
        assertTrue(kinds.contains(ViolationKind.STALE_HOLDER_ACCESS_ACCEPTED), report.summary());
        assertTrue(kinds.contains(ViolationKind.STALE_ACCEPTED), report.summary());
        assertTrue(
                report.violations(ViolationKind.STALE_HOLDER_ACCESS_ACCEPTED)
                        .get(0)
                        .message()
                        .contains("WRITE of 'counter' by w1 with token 1 [230..235] ACCEPTED (seq 3)"),
                report.summary());
    }

    @Test
    void shouldExcuseAnUntoldOverlapOfADeclaredPausedHolderAsItsOwnKind() {
        CheckReport report = check(overlapRun(run -> run.fault("sigstop", FaultEffect.PAUSE, "w1", 120, 250), false));

        assertTrue(report.passed(), report.summary());
        assertEquals(1, report.overlaps(OverlapKind.HOLDER_PAUSED).size());
    }

    @Test
    void shouldNotExcuseAnOverlapByThePauseOfAnotherProcess() {
        CheckReport report = check(overlapRun(run -> run.fault("sigstop", FaultEffect.PAUSE, "w2", 120, 250), false));

        assertEquals(List.of(ViolationKind.UNTOLD_OVERLAP), kinds(report), report.summary());
    }

    @Test
    void shouldReportAStaleTokenTheResourceAcceptedAfterAHigherOne() {
        // w1 was told in time, so the overlap itself is allowed; the resource still must not take its late write.
        CheckReport report = check(overlapRun(run -> run.loss("w1", 1, 150), true));

        assertEquals(List.of(ViolationKind.STALE_ACCEPTED), kinds(report), report.summary());
        assertEquals(
                "resource 'counter' accepted the WRITE of 'counter' by w1 with token 1 [230..235] ACCEPTED (seq 3)"
                        + " after it had accepted the READ of 'counter' by w2 with token 2 [210..215] ACCEPTED (seq 2) (by its own order)",
                report.violations().get(0).message());
    }

    @Test
    void shouldReportAStaleAcceptedTokenByRealTimeWhenTheResourceGivesNoNumbers() {
        RunBuilder run = new RunBuilder().started("w1", 0).started("w2", 0);
        run.acquired("w1", 1, 80, 98).sectionStart("w1", 1, 100).loss("w1", 1, 150);
        run.acquired("w2", 2, 180, 198).sectionStart("w2", 2, 200);
        run.add(new ResourceAccess(
                "w2", RunBuilder.LOCK, "ledger", AccessOp.READ, 2, AccessOutcome.ACCEPTED, 0L, null, 210, 215, null));
        run.add(new ResourceAccess(
                "w1", RunBuilder.LOCK, "ledger", AccessOp.WRITE, 1, AccessOutcome.ACCEPTED, 1L, null, 230, 235, null));
        run.sectionEnd("w1", 1, 260, SectionEnding.LOST).sectionEnd("w2", 2, 300, SectionEnding.RELEASED);
        run.ended("w1", 400).ended("w2", 400);

        CheckReport report = check(run);

        assertEquals(List.of(ViolationKind.STALE_ACCEPTED), kinds(report), report.summary());
        assertTrue(report.violations().get(0).message().contains("had been accepted and answered before it was sent"));
        assertTrue(
                report.notes().get(0).contains("resource 'ledger': NOT CHECKED for lost updates"),
                report.notes().toString());
    }

    @Test
    void shouldReportALostUpdateWhenTheCounterDisagreesWithItsLogOfAcceptedWrites() {
        RunBuilder run = new RunBuilder().started("w1", 0).started("w2", 0);
        long time = 100;
        for (int i = 0; i < 10; i++) {
            run.section(i % 2 == 0 ? "w1" : "w2", 1000 + i, time);
            time += 100;
        }
        run.ended("w1", time).ended("w2", time).snapshotWithCounter(9, time + 1);

        CheckReport report = check(run);

        assertEquals(List.of(ViolationKind.LOST_UPDATE), kinds(report), report.summary());
        assertTrue(
                report.violations()
                        .get(0)
                        .message()
                        .equals(
                                "resource 'counter' counts 9 but its log holds 10 accepted increments: 1 update(s) lost"),
                report.summary());
    }

    @Test
    void shouldPinpointTheWriteThatWasBuiltOnAStaleRead() {
        RunBuilder run = cleanRun();
        // A planted log entry: the write of seq 10 (w1's, token 1004) wrote 4 over 4 instead of 5 over 4.
        List<io.leasehold.lock.history.HistoryEvent> events = run.events();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof ResourceUpdate u && u.seq() == 10) {
                events.set(
                        i,
                        new ResourceUpdate(
                                u.process(), u.resource(), u.seq(), u.token(), u.previous(), u.previous(), u.time()));
            }
        }

        CheckReport report = check(run);

        List<String> messages = report.violations(ViolationKind.LOST_UPDATE).stream()
                .map(Violation::message)
                .toList();
        assertTrue(
                messages.stream().anyMatch(m -> m.contains("the write of seq 10 (token 1004) wrote 4 over 4")),
                messages.toString());
        assertTrue(
                messages.stream()
                        .anyMatch(m -> m.contains("acknowledged the WRITE of 'counter' by w1 with token 1004")),
                "the worker's acknowledged value 5 is not in the log: " + messages);
    }

    @Test
    void shouldReportAnAcknowledgedWriteMissingFromTheResourceLogAndAWriteNobodyRecorded() {
        RunBuilder run = cleanRun();
        run.events().removeIf(e -> e instanceof ResourceUpdate u && u.seq() == 4);
        run.add(new ResourceUpdate("runner", RunBuilder.RESOURCE, 99, 1009, 10, 11, 5000));

        CheckReport report = check(run);

        assertTrue(
                kinds(report).containsAll(List.of(ViolationKind.LOST_UPDATE, ViolationKind.UNLOGGED_UPDATE)),
                report.summary());
        assertTrue(report.violations(ViolationKind.UNLOGGED_UPDATE)
                .get(0)
                .message()
                .contains("logged the write of seq 99 (token 1009, 10 -> 11) that no worker recorded"));
    }

    @Test
    void shouldReportATokenSmallerThanOneGrantedBeforeAndATokenGrantedTwice() {
        RunBuilder run = new RunBuilder().started("w1", 0).started("w2", 0);
        run.section("w1", 50, 100);
        run.section("w2", 40, 200);
        run.section("w1", 60, 300);
        run.section("w2", 60, 400);
        run.ended("w1", 500).ended("w2", 500);

        CheckReport report = check(run);

        assertEquals(1, report.violations(ViolationKind.NON_MONOTONIC_TOKEN).size(), report.summary());
        assertTrue(report.violations(ViolationKind.NON_MONOTONIC_TOKEN)
                .get(0)
                .message()
                .contains(
                        "w2 (token 40, acquire [180..198]) got a smaller token than w1 (token 50, acquire [80..98])"));
        assertEquals(1, report.violations(ViolationKind.DUPLICATE_TOKEN).size(), report.summary());
    }

    @Test
    void shouldNotOrderTheTokensOfAcquisitionsThatOverlappedInTime() {
        RunBuilder run = new RunBuilder().started("w1", 0).started("w2", 0);
        run.acquired("w1", 7, 100, 300).sectionStart("w1", 7, 300).sectionEnd("w1", 7, 310, SectionEnding.RELEASED);
        run.acquired("w2", 5, 150, 200).sectionStart("w2", 5, 200).sectionEnd("w2", 5, 210, SectionEnding.RELEASED);
        run.ended("w1", 400).ended("w2", 400);

        CheckReport report = check(run);

        assertTrue(report.passed(), report.summary());
    }

    @Test
    void shouldReportAStarvedWorkerAndAHungOneThatNeverFinished() {
        RunBuilder run = cleanRun();
        run.started("w3", 0);
        for (int i = 0; i < 5; i++) {
            run.failed("w3", AcquireOutcome.TIMEOUT, 100 + i * 200, 290 + i * 200);
        }
        run.ended("w3", 1100);
        run.started("w4", 0).failed("w4", AcquireOutcome.TIMEOUT, 10, 20);

        CheckReport report = HistoryChecker.check(
                run.history(),
                CheckOptions.builder().maxSilence(Duration.ofNanos(500_000)).build());

        assertEquals(
                List.of(ViolationKind.STARVED, ViolationKind.HUNG, ViolationKind.UNFINISHED),
                kinds(report),
                report.summary());
        assertTrue(report.safe(), "progress problems are not safety violations");
        assertEquals(
                List.of("w3", "w4"),
                report.violations(ViolationKind.STARVED).stream()
                        .map(v -> v.message().split(" ")[0])
                        .toList());
        assertEquals(
                "w4 wrote nothing for PT0.001081S, longer than the PT0.0005S allowed (it never finished)",
                report.violations(ViolationKind.HUNG).get(0).message());
        assertEquals(1081, report.progress().get("w4").longestSilenceMicros());
    }

    @Test
    void shouldEndAKilledWorkersOpenSectionAtItsKillAndNotCallItUnfinished() {
        RunBuilder run = new RunBuilder().started("w1", 0).started("w2", 0);
        run.acquired("w1", 1, 80, 98).sectionStart("w1", 1, 100).read("w1", 1, 110);
        run.fault("sigkill", FaultEffect.KILL, "w1", 120, 120);
        run.section("w2", 2, 200);
        run.ended("w2", 400);

        CheckReport report = check(run);

        assertTrue(report.passed(), report.summary());
        assertEquals(List.of(), report.overlaps());
    }

    @Test
    void shouldNeverHideTheOverlapOfASectionThatNeverEnded() {
        RunBuilder run = new RunBuilder().started("w1", 0).started("w2", 0);
        run.acquired("w1", 1, 80, 98).sectionStart("w1", 1, 100).read("w1", 1, 110);
        run.section("w2", 2, 200);
        run.ended("w2", 400);

        CheckReport report = check(run);

        assertTrue(
                kinds(report).containsAll(List.of(ViolationKind.UNTOLD_OVERLAP, ViolationKind.UNFINISHED)),
                report.summary());
        assertTrue(report.overlaps().get(0).earlier().open());
        assertEquals(400, report.overlaps().get(0).earlier().end(), "an open section lasts until the run's end");
    }

    @Test
    void shouldReportAnAccessOutsideItsSection() {
        RunBuilder run = cleanRun();
        run.add(new ResourceAccess(
                "w1",
                RunBuilder.LOCK,
                RunBuilder.RESOURCE,
                AccessOp.READ,
                1000,
                AccessOutcome.REJECTED,
                null,
                77L,
                900,
                905,
                null));
        run.add(new ResourceAccess(
                "w9",
                RunBuilder.LOCK,
                RunBuilder.RESOURCE,
                AccessOp.READ,
                5,
                AccessOutcome.REJECTED,
                null,
                78L,
                900,
                905,
                null));

        CheckReport report = check(run);

        assertEquals(2, report.violations(ViolationKind.ACCESS_OUTSIDE_SECTION).size(), report.summary());
        assertEquals(List.of(ViolationKind.ACCESS_OUTSIDE_SECTION), kinds(report));
    }

    @Test
    void shouldReportSectionsThatEndTwiceOrNeverStarted() {
        RunBuilder run = cleanRun();
        run.sectionEnd("w1", 1000, 170, SectionEnding.RELEASED);
        run.sectionEnd("w1", 4242, 170, SectionEnding.RELEASED);

        CheckReport report = check(run);

        assertEquals(2, report.violations(ViolationKind.MALFORMED_HISTORY).size(), report.summary());
    }

    @Test
    void shouldMeasureTheLossDetectionDelayAfterADeclaredFaultAndTheMarginBeforeTheNextHolder() {
        CheckReport report = check(
                overlapRun(run -> run.loss("w1", 1, 150).fault("partition", FaultEffect.OTHER, null, 120, 400), false));

        LossDelay delay = report.lossDelays().get(0);
        assertEquals(new LossDelay("w1", RunBuilder.LOCK, 1, "EXPIRED", 150, 30L, 50L, 3), delay);
        assertEquals(30L, report.maxLossDetectionDelayMicros());
        assertTrue(
                report.summary().contains("loss signals: 1, longest after a declared fault PT0.00003S"),
                report.summary());
    }

    @Test
    void shouldHaveNoLossDelayWithoutLosses() {
        assertNull(check(cleanRun()).maxLossDetectionDelayMicros());
    }
}
