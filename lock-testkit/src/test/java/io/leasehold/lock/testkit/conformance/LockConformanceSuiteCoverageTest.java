package io.leasehold.lock.testkit.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Keeps the JUnit form in step with the scenario list that the kotest form registers directly. */
class LockConformanceSuiteCoverageTest {

    @Test
    void shouldHaveOneJUnitTestPerScenario() {
        Set<String> scenarios = ConformanceScenarios.getAll().stream()
                .map(Scenario::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> tests = Arrays.stream(LockConformanceSuite.class.getDeclaredMethods())
                .filter(m -> m.isAnnotationPresent(Test.class))
                .map(Method::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(scenarios, tests, "scenarios vs @Test methods of LockConformanceSuite");
    }

    @Test
    void shouldRunAtLeastTwentyFiveScenariosCoveringEveryGuarantee() {
        assertTrue(
                ConformanceScenarios.getAll().size() >= 25,
                "scenario count " + ConformanceScenarios.getAll().size());
        Set<String> covered = ConformanceScenarios.getAll().stream()
                .flatMap(s -> s.getGuarantees().stream())
                .collect(Collectors.toCollection(TreeSet::new));
        for (int g = 1; g <= 13; g++) {
            assertTrue(covered.contains("G" + g), "no scenario proves G" + g + "; covered: " + covered);
        }
    }
}
