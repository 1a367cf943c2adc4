package io.leasehold.lock.history.checker;

import io.leasehold.lock.history.History;
import io.leasehold.lock.history.HistoryFormatException;
import io.leasehold.lock.history.HistoryReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Checks the history of a safety run (see {@link io.leasehold.lock.history}) and reports
 * every way it shows the lock or the fenced resource failing:
 * <ul>
 *   <li>fencing tokens strictly increase per lock in acquisition order, and never repeat;</li>
 *   <li>the resource never accepted a stale token (an access whose token is lower than one it had
 *       already accepted);</li>
 *   <li>no lost update: the resource's counter equals its log of accepted writes, each write builds
 *       on the one before, and the log agrees with what the workers saw accepted;</li>
 *   <li>no two sections of a lock overlapped unless the earlier holder was told before the later
 *       began; an overlap nobody was told of in time is allowed only where Redis itself lost data (or
 *       the earlier holder's process was paused), declared as such, and there only if the stale
 *       holder was told afterwards and the resource rejected its accesses after the new holder's
 *       first one (see {@link OverlapKind});</li>
 *   <li>every worker made progress: not starved, not hung, finished (see {@link CheckOptions});</li>
 *   <li>and it measures how promptly each loss was signalled.</li>
 * </ul>
 * The checker never hides an overlap: each one is in {@link CheckReport#overlaps()} with its kind.
 *
 * <p>From the command line (exit status 0 passed, 1 violations, 2 bad usage or unreadable history):
 * <pre>
 * java -cp lock-history.jar:gson.jar:lock-api.jar io.leasehold.lock.history.checker.HistoryChecker \
 *     [--data-loss START..END]... [--max-silence PT60S] [--min-acquisitions 1] PATH...
 * </pre>
 * where each {@code PATH} is a history file or a directory of {@code *.jsonl} files, and
 * {@code --data-loss} adds a window (microseconds since the epoch) in which Redis lost data, besides
 * the {@code DATA_LOSS} fault records in the history.
 *
 * <p>This class is threadsafe.
 */
public final class HistoryChecker {

    private HistoryChecker() {}

    /** Checks {@code history} with {@link CheckOptions#defaults()}. */
    public static CheckReport check(History history) {
        return check(history, CheckOptions.defaults());
    }

    /** Checks {@code history}; see the class documentation. */
    public static CheckReport check(History history, CheckOptions options) {
        Objects.requireNonNull(history, "history");
        Objects.requireNonNull(options, "options");
        HistoryIndex index = new HistoryIndex(history);
        List<Violation> violations = new ArrayList<>(index.violations);
        List<String> notes = new ArrayList<>(history.notes());
        TokenOrderCheck.run(index, violations);
        StaleAccessCheck.run(index, violations);
        LostUpdateCheck.run(index, violations, notes);
        List<Overlap> overlaps = OverlapCheck.run(index, options.dataLossWindows(), violations);
        Map<String, ProcessProgress> progress = ProgressCheck.run(index, options, violations);
        List<LossDelay> delays = LossDelayCheck.run(index);
        if (index.acquisitionsByLock.isEmpty() && !index.sectionsByLock.isEmpty()) {
            notes.add("no acquire records: token order NOT CHECKED");
        }
        return new CheckReport(
                history.events().size(), index.runStart, index.runEnd, violations, overlaps, progress, delays, notes);
    }

    /** Runs the checker on the command line; see the class documentation. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * {@link #main} without exiting, for a test or a tool that runs the checker in its own JVM.
     *
     * @param args the command line's arguments
     * @param out where the report goes
     * @param err where usage errors go
     * @return the exit status {@link #main} would exit with
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CheckOptions.Builder options = CheckOptions.builder();
        List<Path> paths = new ArrayList<>();
        try {
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--data-loss" -> options.dataLoss(TimeWindow.parse(value(args, ++i, arg)));
                    case "--max-silence" -> options.maxSilence(Duration.parse(value(args, ++i, arg)));
                    case "--min-acquisitions" -> options.minAcquisitions(Integer.parseInt(value(args, ++i, arg)));
                    case "--help", "-h" -> {
                        out.println(usage());
                        return 0;
                    }
                    default -> {
                        if (arg.startsWith("--")) {
                            throw new IllegalArgumentException("unknown option " + arg);
                        }
                        paths.add(Path.of(arg));
                    }
                }
            }
            if (paths.isEmpty()) {
                throw new IllegalArgumentException("no history file or directory given");
            }
        } catch (IllegalArgumentException | DateTimeParseException e) {
            err.println("error: " + e.getMessage());
            err.println(usage());
            return 2;
        }
        History history;
        try {
            history = HistoryReader.read(paths);
        } catch (IOException | HistoryFormatException e) {
            err.println("error: cannot read the history: " + e);
            return 2;
        }
        CheckReport report = check(history, options.build());
        out.print(report.summary());
        return report.passed() ? 0 : 1;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static String usage() {
        return "usage: HistoryChecker [--data-loss START..END]... [--max-silence PT60S] [--min-acquisitions N] PATH...\n"
                + "  PATH                     a history file, or a directory of *.jsonl history files\n"
                + "  --data-loss START..END   Redis lost data then (microseconds since the epoch); repeatable\n"
                + "  --max-silence DURATION   ISO-8601; a worker silent for longer is hung (default "
                + CheckOptions.DEFAULT_MAX_SILENCE + ")\n"
                + "  --min-acquisitions N     a worker that got fewer leases is starved (default "
                + CheckOptions.DEFAULT_MIN_ACQUISITIONS + ")\n"
                + "exit status: 0 passed, 1 violations found, 2 bad usage or unreadable history";
    }
}
