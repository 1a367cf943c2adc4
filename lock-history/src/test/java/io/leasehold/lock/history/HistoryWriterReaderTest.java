package io.leasehold.lock.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.LeaseLoss;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryWriterReaderTest {

    @TempDir
    Path dir;

    @Test
    void shouldWriteFilesThatReadBackAsTheSameRecordsFromAFileOrADirectory() throws IOException {
        Path file = dir.resolve("run/w1.jsonl");
        try (HistoryWriter writer = HistoryWriter.open(file, "w1")) {
            HistoryCodecTest.EVERY_TYPE.forEach(writer::write);
        }
        Files.writeString(dir.resolve("run/notes.txt"), "not a history file");

        assertEquals(HistoryCodecTest.EVERY_TYPE, HistoryReader.read(file).events());
        assertEquals(
                HistoryCodecTest.EVERY_TYPE, HistoryReader.read(dir).events(), "*.jsonl at any depth, nothing else");
    }

    @Test
    void shouldAppendToAnExistingFileAndStampConvenienceRecordsWithItsProcessAndTheClock() throws IOException {
        Path file = dir.resolve("w2.jsonl");
        long before = HistoryClock.nowMicros();
        try (HistoryWriter writer = HistoryWriter.open(file, "w2")) {
            writer.processStarted();
        }
        try (HistoryWriter writer = HistoryWriter.open(file, "w2")) {
            writer.sectionStarted("L", 7);
            writer.sectionEnded("L", 7, 123, SectionEnding.RELEASED);
            writer.loss(new LeaseLoss("L", 7, LeaseLoss.Reason.STOLEN, Instant.ofEpochSecond(5), null));
            writer.processEnded();
        }
        long after = HistoryClock.nowMicros();

        List<HistoryEvent> events = HistoryReader.read(file).events();
        assertEquals(5, events.size());
        for (HistoryEvent event : events) {
            assertEquals("w2", event.process());
        }
        long started = ((ProcessStarted) events.get(0)).time();
        assertTrue(before <= started && started <= after, started + " within [" + before + ", " + after + "]");
        assertEquals(new SectionEnded("w2", "L", 7, 123, SectionEnding.RELEASED), events.get(2));
        assertEquals(5_000_000L, ((LossSignal) events.get(3)).time());
    }

    @Test
    void shouldSkipACutLastLineWithANoteButFailOnABadLineElsewhereNamingFileAndLine() throws IOException {
        Path cut = dir.resolve("cut.jsonl");
        Files.writeString(
                cut,
                HistoryCodec.encode(new ProcessStarted("w1", 1)) + "\n\n{\"type\":\"process-end\",\"proc",
                StandardCharsets.UTF_8);
        History history = HistoryReader.read(cut);
        assertEquals(List.of(new ProcessStarted("w1", 1)), history.events());
        assertEquals(1, history.notes().size());
        assertTrue(
                history.notes().get(0).startsWith(cut + ":3: skipped a cut last line"),
                history.notes().get(0));

        Path bad = dir.resolve("bad.jsonl");
        Files.writeString(
                bad, "{\"type\":\"process-end\",\"proc\n" + HistoryCodec.encode(new ProcessStarted("w1", 1)) + "\n");
        HistoryFormatException error = assertThrows(HistoryFormatException.class, () -> HistoryReader.read(bad));
        assertTrue(error.getMessage().startsWith(bad + ":1: not valid JSON"), error.getMessage());

        Path badLastLine = dir.resolve("bad-last.jsonl");
        Files.writeString(badLastLine, "{\"type\":\"mystery\",\"process\":\"w1\"}\n");
        assertThrows(
                HistoryFormatException.class,
                () -> HistoryReader.read(badLastLine),
                "a whole last line (with its line break) is no cut line: it must be valid");
    }

    @Test
    void shouldFailOnAPathThatDoesNotExist() {
        NoSuchFileException missing =
                assertThrows(NoSuchFileException.class, () -> HistoryReader.read(dir.resolve("nope")));
        assertTrue(missing.getMessage().contains("no history file or directory here"), missing.getMessage());
    }

    @Test
    void shouldNeverInterleaveRecordsWrittenFromSeveralThreads() throws Exception {
        StringWriter text = new StringWriter();
        HistoryWriter writer = new HistoryWriter(text, "w1");
        int threads = 4;
        int records = 500;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < records; i++) {
                        writer.write(new SectionStarted("w1", "lock-" + thread, i, i));
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        Set<String> seen = new HashSet<>();
        List<String> lines = text.toString().lines().toList();
        for (String line : lines) {
            SectionStarted record = (SectionStarted) HistoryCodec.decode(line);
            seen.add(record.lock() + "/" + record.token());
        }
        assertEquals(threads * records, lines.size());
        assertEquals(threads * records, seen.size());
    }

    @Test
    void shouldRecordEveryLossThatTheListenerHears() throws IOException {
        StringWriter text = new StringWriter();
        LossSignalListener listener = new LossSignalListener(new HistoryWriter(text, "w3"));

        listener.onLeaseLost(
                new LeaseLoss("L", 9, LeaseLoss.Reason.BACKEND_UNAVAILABLE, Instant.ofEpochSecond(1), null));

        LossSignal signal = (LossSignal) HistoryCodec.decode(text.toString().strip());
        assertEquals("w3", signal.process());
        assertEquals(9, signal.token());
        assertEquals("BACKEND_UNAVAILABLE", signal.reason());
        assertTrue(signal.seen() >= signal.time());
    }
}
