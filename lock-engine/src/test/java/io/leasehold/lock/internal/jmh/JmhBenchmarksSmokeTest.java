package io.leasehold.lock.internal.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Every JMH benchmark, with each of its parameter sets, runs its setup, one invocation and its
 * teardown through the harness JMH generated for it, in this JVM: a benchmark broken by a change to
 * the engine fails the build. It measures nothing (the one timing is thrown away).
 */
class JmhBenchmarksSmokeTest {

    private static final String ENGINE_BENCHMARKS = "io\\.leasehold\\.lock\\.internal\\..*Benchmark\\..*";

    @Test
    void everyBenchmarkShouldRunOnceThroughItsGeneratedHarness() throws RunnerException {
        Options once = new OptionsBuilder()
                .include(ENGINE_BENCHMARKS)
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .mode(Mode.SingleShotTime)
                .measurementBatchSize(1)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();

        Collection<RunResult> results = new Runner(once).run();

        Map<String, Long> runs = results.stream()
                .collect(Collectors.groupingBy(r -> r.getParams().getBenchmark(), Collectors.counting()));
        Map<String, Long> expected = listedBenchmarks().stream()
                .collect(Collectors.toMap(BenchmarkListEntry::getUsername, JmhBenchmarksSmokeTest::parameterSets));
        assertThat(runs).isEqualTo(expected);
        assertThat(runs.keySet())
                .map(name -> name.substring(0, name.lastIndexOf('.')))
                .contains(
                        "io.leasehold.lock.internal.OwnerIdBenchmark",
                        "io.leasehold.lock.internal.AcquireArgumentsBenchmark",
                        "io.leasehold.lock.internal.WaitQueueBenchmark",
                        "io.leasehold.lock.internal.RenewerBenchmark");
        assertThat(results)
                .allSatisfy(
                        r -> assertThat(r.getPrimaryResult().getSampleCount()).isEqualTo(1));

        // The table of a run is made from the same results.
        List<JmhReport.Row> rows = results.stream().map(JmhReport.Row::of).toList();
        String table = new JmhReport(JmhReport.Machine.of(results, LocalDate.of(2026, 11, 25)), rows).render();
        assertThat(table)
                .contains("|RenewerBenchmark.addThenRemove (leases=10000)|ss|")
                .contains("|OwnerIdBenchmark.next|ss|")
                .contains("2026-11-25 · ");
    }

    /** The benchmarks JMH's annotation processor listed in META-INF/BenchmarkList. */
    private static SortedSet<BenchmarkListEntry> listedBenchmarks() {
        return BenchmarkList.defaultList()
                .find(
                        OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT),
                        List.of(ENGINE_BENCHMARKS),
                        List.of());
    }

    /** How many parameter sets JMH runs a benchmark with: the product of its @Param value counts. */
    private static long parameterSets(BenchmarkListEntry entry) {
        return entry.getParams().orElse(Map.of()).values().stream()
                .mapToLong(values -> values.length)
                .reduce(1, (a, b) -> a * b);
    }
}
