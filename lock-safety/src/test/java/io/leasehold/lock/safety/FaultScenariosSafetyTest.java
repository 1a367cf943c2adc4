package io.leasehold.lock.safety;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The safety suite inside {@code mvn verify}: every fault scenario once per driver (the fast version;
 * {@code -Dsafety.soak=true} for the soak, {@code -Dsafety.runs=N} for N runs of each), worker
 * processes contending for real, each run judged by the {@link io.leasehold.lock.history.checker.HistoryChecker}
 * and by its scenario's own demands. The runs go first (two at a time), then the table is printed and
 * written to {@code target/safety-results.md}, then each run is one test that fails with its report.
 */
class FaultScenariosSafetyTest {

    @TestFactory
    Stream<DynamicTest> everyFaultScenarioShouldKeepTheLockSafeWithBothDrivers() throws Exception {
        SuiteSettings settings = SuiteSettings.fromSystemProperties();
        List<RunResult> results = SafetySuite.run(settings, Scenarios.selected(System.getProperty("safety.only")));
        String table = ResultsTable.markdown(results, settings);
        System.out.println(table);
        ResultsTable.write(Path.of(System.getProperty("safety.results", "target/safety-results.md")), table);
        return results.stream()
                .map(result -> DynamicTest.dynamicTest(
                        result.scenario() + " / " + result.driver().label() + " #" + result.run(),
                        () -> assertTrue(result.passed(), result::explain)));
    }
}
