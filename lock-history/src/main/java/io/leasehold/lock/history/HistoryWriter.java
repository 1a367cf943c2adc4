package io.leasehold.lock.history;

import io.leasehold.lock.LeaseLoss;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * Appends history records, one JSON line each, for one process. Each record is flushed as soon as
 * it is written, so that a worker killed at any moment leaves every record it finished writing (at
 * worst a cut last line, which {@link HistoryReader} skips with a note).
 *
 * <p>A worker of a safety run would use it like this:
 * <pre>{@code
 * try (HistoryWriter history = HistoryWriter.open(dir.resolve("w1.jsonl"), "w1");
 *      LockClient locks = LockClient.builder(backend).listener(new LossSignalListener(history)).build()) {
 *     history.processStarted();
 *     long start = HistoryClock.nowMicros();
 *     Lease lease = locks.lock("L").acquire(wait);                       // (log TIMEOUT / ERROR on failure)
 *     history.write(AcquireAttempt.acquired("w1", "L", start, HistoryClock.nowMicros(), lease.fencingToken()));
 *     lease.lost().thenAccept(history::loss);
 *     history.sectionStarted("L", lease.fencingToken());                // after acquire returned
 *     ... read-modify-write the FencedResource, history.write(access.toHistory(...)) for each access ...
 *     long end = HistoryClock.nowMicros();                            // after the last access, before release
 *     boolean released = lease.release();                               // (RELEASE_FAILED if it throws)
 *     history.sectionEnded("L", lease.fencingToken(), end, released ? RELEASED : NOT_HELD);
 *     history.processEnded();
 * }
 * }</pre>
 *
 * <p>This class is threadsafe: records written from several threads (a worker, a listener) never
 * interleave within a line.
 */
public final class HistoryWriter implements AutoCloseable {

    private final Writer out;
    private final String process;

    /** Writes to {@code out}; records made by the convenience methods carry {@code process}. */
    public HistoryWriter(Writer out, String process) {
        this.out = Objects.requireNonNull(out, "out");
        this.process = Checks.name("HistoryWriter", "process", process);
    }

    /** Opens {@code file} for appending (creating it and its directory if needed). */
    public static HistoryWriter open(Path file, String process) throws IOException {
        Objects.requireNonNull(file, "file");
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Writer writer = new BufferedWriter(Files.newBufferedWriter(
                file,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND,
                StandardOpenOption.WRITE));
        return new HistoryWriter(writer, process);
    }

    /** The process name this writer puts on the records it makes. */
    public String process() {
        return process;
    }

    /**
     * Appends {@code event} as one line and flushes it. Any record may be written, whoever it names
     * as its process (a runner copying a resource's log, a nemesis declaring faults).
     *
     * @throws UncheckedIOException when the line cannot be written: a history with holes must not pass as whole
     */
    public void write(HistoryEvent event) {
        Objects.requireNonNull(event, "event");
        String line = HistoryCodec.encode(event);
        synchronized (out) {
            try {
                out.write(line);
                out.write('\n');
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot append to the history of " + process + ": " + e.getMessage(), e);
            }
        }
    }

    /** Writes {@link ProcessStarted} now. */
    public void processStarted() {
        write(new ProcessStarted(process, HistoryClock.nowMicros()));
    }

    /** Writes {@link ProcessEnded} now. */
    public void processEnded() {
        write(new ProcessEnded(process, HistoryClock.nowMicros()));
    }

    /** Writes {@link SectionStarted} now: call it after the acquire returned, before the first access. */
    public void sectionStarted(String lock, long token) {
        write(new SectionStarted(process, lock, token, HistoryClock.nowMicros()));
    }

    /** Writes {@link SectionEnded} with the {@code time} read before the release, once the release told the {@code ending}. */
    public void sectionEnded(String lock, long token, long time, SectionEnding ending) {
        write(new SectionEnded(process, lock, token, time, ending));
    }

    /** Writes the {@link LossSignal} of {@code loss}, seen now: fits {@code lease.lost().thenAccept(history::loss)}. */
    public void loss(LeaseLoss loss) {
        write(LossSignal.of(process, loss));
    }

    @Override
    public void close() throws IOException {
        synchronized (out) {
            out.close();
        }
    }
}
