package io.leasehold.lock.history;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Reads history files: each path is a file, or a directory whose {@code *.jsonl} files (at any depth,
 * in name order) are read. Blank lines are skipped. A last line without its line break that is not a
 * valid record is what a process killed in the middle of a write leaves: it is skipped, with a note
 * in {@link History#notes()}. Any other bad line fails the whole read.
 *
 * <p>This class is threadsafe.
 */
public final class HistoryReader {

    /** The file name ending read from directories. */
    public static final String EXTENSION = ".jsonl";

    private HistoryReader() {}

    /** Reads every record of {@code paths}; see the class documentation. */
    public static History read(Path... paths) throws IOException {
        return read(List.of(paths));
    }

    /**
     * Reads every record of {@code paths}; see the class documentation.
     *
     * @throws NoSuchFileException when a path does not exist
     * @throws HistoryFormatException when a line is not a valid record (message: {@code file:line: problem})
     */
    public static History read(List<Path> paths) throws IOException {
        Objects.requireNonNull(paths, "paths");
        List<HistoryEvent> events = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (Path path : paths) {
            for (Path file : filesOf(path)) {
                readFile(file, events, notes);
            }
        }
        return History.of(events, notes);
    }

    private static List<Path> filesOf(Path path) throws IOException {
        if (!Files.exists(path)) {
            throw new NoSuchFileException(path.toString(), null, "no history file or directory here");
        }
        if (!Files.isDirectory(path)) {
            return List.of(path);
        }
        try (Stream<Path> walk = Files.walk(path)) {
            return walk.filter(Files::isRegularFile)
                    .filter(file -> file.getFileName().toString().endsWith(EXTENSION))
                    .sorted()
                    .toList();
        }
    }

    private static void readFile(Path file, List<HistoryEvent> events, List<String> notes) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        boolean endsWithBreak = text.isEmpty() || text.endsWith("\n");
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            try {
                events.add(HistoryCodec.decode(line));
            } catch (HistoryFormatException e) {
                boolean cutLastLine = i == lines.size() - 1 && !endsWithBreak;
                if (cutLastLine) {
                    notes.add(file + ":" + (i + 1) + ": skipped a cut last line (its writer stopped mid-write): "
                            + e.getMessage());
                } else {
                    throw new HistoryFormatException(file + ":" + (i + 1) + ": " + e.getMessage(), e);
                }
            }
        }
    }
}
