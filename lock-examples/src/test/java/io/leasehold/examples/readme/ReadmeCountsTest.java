package io.leasehold.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.testkit.conformance.ConformanceScenarios;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README counts the conformance suite's scenarios in more than one place; the suite's scenario list
 * ({@code ConformanceScenarios}, which {@code LockConformanceSuite} and the kotest form run, one test per
 * scenario) is the one source of that number, so every place must say what it holds.
 */
class ReadmeCountsTest {

    private static final Pattern SCENARIO_COUNT = Pattern.compile("\\(`lock-testkit`, (\\d+) scenarios");

    @Test
    void shouldCountTheConformanceScenariosAsTheSuiteHoldsThem() throws IOException {
        Path moduleDir = Path.of(System.getProperty("leasehold.examples.dir", "."))
                .toAbsolutePath()
                .normalize();
        String readme = Files.readString(moduleDir.resolveSibling("README.md"));
        long scenarios = ConformanceScenarios.getAll().size();

        Matcher counts = SCENARIO_COUNT.matcher(readme);
        List<Long> stated =
                counts.results().map(result -> Long.parseLong(result.group(1))).toList();

        assertThat(stated)
                .as("the README's counts of conformance scenarios (\"(`lock-testkit`, N scenarios\")")
                .hasSizeGreaterThanOrEqualTo(2)
                .containsOnly(scenarios);
    }
}
