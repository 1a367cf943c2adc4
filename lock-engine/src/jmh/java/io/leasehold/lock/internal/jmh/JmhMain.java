package io.leasehold.lock.internal.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.Main;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.NoBenchmarksException;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;

/**
 * Runs the JMH microbenchmarks as {@link org.openjdk.jmh.Main} would, with the same command-line
 * options, and writes the results as a Markdown table to the file named by the system property
 * {@code leasehold.jmh.out} (default {@code results/JMH.md}), so that committed figures are exactly
 * what a run printed. Listing and help options are left to JMH's own main.
 */
public final class JmhMain {

    private JmhMain() {}

    public static void main(String[] args) throws IOException {
        CommandLineOptions options;
        try {
            options = new CommandLineOptions(args);
        } catch (CommandLineOptionException e) {
            System.err.println("Error parsing the JMH options: " + e.getMessage());
            System.exit(1);
            return;
        }
        if (options.shouldHelp()
                || options.shouldList()
                || options.shouldListWithParams()
                || options.shouldListProfilers()
                || options.shouldListResultFormats()) {
            Main.main(args);
            return;
        }
        Collection<RunResult> results;
        try {
            results = new Runner(options).run();
        } catch (NoBenchmarksException e) {
            System.err.println("No benchmark matches " + options.getIncludes() + " (see -l for the list).");
            System.exit(1);
            return;
        } catch (RunnerException e) {
            System.err.print("ERROR: ");
            e.printStackTrace(System.err);
            System.exit(1);
            return;
        }
        if (results.isEmpty()) {
            // Every benchmark failed (JMH printed why): keep the last table rather than write an empty one.
            System.err.println("No benchmark produced a result; nothing written.");
            System.exit(1);
        }
        List<JmhReport.Row> rows = new ArrayList<>();
        for (RunResult result : results) {
            rows.add(JmhReport.Row.of(result));
        }
        Path out = Path.of(System.getProperty("leasehold.jmh.out", "results/JMH.md"));
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        Files.writeString(out, new JmhReport(JmhReport.Machine.of(results, LocalDate.now()), rows).render());
        System.out.println("Wrote " + out.toAbsolutePath().normalize());
    }
}
