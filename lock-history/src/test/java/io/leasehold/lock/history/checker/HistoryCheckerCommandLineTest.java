package io.leasehold.lock.history.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.history.HistoryEvent;
import io.leasehold.lock.history.HistoryWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checker's main on history files, as a user would run it on their own logs. */
class HistoryCheckerCommandLineTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return HistoryChecker.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** Writes each process's records to its own file, as the workers of a run would. */
    private Path writeRun(String name, List<HistoryEvent> events) throws IOException {
        Path runDir = dir.resolve(name);
        for (HistoryEvent event : events) {
            try (HistoryWriter writer =
                    HistoryWriter.open(runDir.resolve(event.process() + ".jsonl"), event.process())) {
                writer.write(event);
            }
        }
        return runDir;
    }

    @Test
    void shouldExitZeroAndPrintThePassedReportForACleanRunDirectory() throws IOException {
        RunBuilder run = new RunBuilder().started("w1", 0).started("w2", 0);
        run.section("w1", 1, 100)
                .section("w2", 2, 200)
                .ended("w1", 300)
                .ended("w2", 300)
                .snapshot(301);
        Path runDir = writeRun("clean", run.events());

        assertEquals(0, run(runDir.toString()), err());
        assertTrue(out().startsWith("Leasehold history check: PASSED"), out());
        assertTrue(Files.exists(runDir.resolve("runner.jsonl")));
    }

    @Test
    void shouldExitOneAndNameTheViolationForAPlantedOverlap() throws IOException {
        Path runDir = writeRun("overlap", overlap().events());

        assertEquals(1, run(runDir.toString()));
        assertTrue(out().contains("UNTOLD_OVERLAP: UNTOLD on lock 'L': w1 token 1"), out());
    }

    @Test
    void shouldAcceptDataLossWindowsAndOtherOptions() throws IOException {
        Path runDir = writeRun("overlap", overlap().events());

        assertEquals(
                0,
                run("--data-loss", "150..170", "--max-silence", "PT1M", "--min-acquisitions", "1", runDir.toString()),
                out() + err());
        assertTrue(out().contains("DATA_LOSS on lock 'L'"), out());
    }

    @Test
    void shouldExitTwoWithTheReasonForBadUsageOrUnreadableInput() throws IOException {
        assertEquals(2, run());
        assertTrue(err().contains("error: no history file or directory given"), err());
        assertTrue(err().contains("usage: HistoryChecker"), err());

        assertEquals(2, run("--data-loss", "soon", dir.toString()));
        assertTrue(
                err().contains("a time window must be START..END in microseconds since the epoch, but was 'soon'"),
                err());

        assertEquals(2, run("--frobnicate", dir.toString()));
        assertTrue(err().contains("unknown option --frobnicate"), err());

        assertEquals(2, run(dir.resolve("missing").toString()));
        assertTrue(err().contains("cannot read the history"), err());

        Files.writeString(dir.resolve("broken.jsonl"), "not json\n");
        assertEquals(2, run(dir.toString()));
        assertTrue(err().contains("broken.jsonl:1: not valid JSON"), err());
    }

    @Test
    void shouldPrintUsageOnHelp() {
        assertEquals(0, run("--help"));
        assertTrue(
                out().contains("exit status: 0 passed, 1 violations found, 2 bad usage or unreadable history"), out());
    }

    private static RunBuilder overlap() {
        RunBuilder run = new RunBuilder().started("w1", 0).started("w2", 0);
        run.acquired("w1", 1, 80, 98).sectionStart("w1", 1, 100).read("w1", 1, 110);
        run.acquired("w2", 2, 180, 198).sectionStart("w2", 2, 200).read("w2", 2, 210);
        run.write("w1", 1, 1, 230).sectionEnd("w1", 1, 260, io.leasehold.lock.history.SectionEnding.NOT_HELD);
        run.write("w2", 2, 1, 240).sectionEnd("w2", 2, 300, io.leasehold.lock.history.SectionEnding.RELEASED);
        return run.ended("w1", 400).ended("w2", 400);
    }
}
