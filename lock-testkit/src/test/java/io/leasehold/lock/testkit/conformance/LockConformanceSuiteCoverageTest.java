package io.leasehold.lock.testkit.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.testkit.InMemoryFixture;
import io.leasehold.lock.testkit.LockBackendFixture;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

/**
 * Keeps the JUnit form in step with the scenario list: {@link LockConformanceSuite#scenarios()} makes one
 * dynamic test per scenario, named after it, in a container of its guarantees, and
 * {@value LockConformanceSuite#SCENARIOS_PROPERTY} picks scenarios and rejects unknown names. How JUnit
 * runs them (skips, limits, failures by name) needs an engine: lock-engine's
 * {@code InMemoryConformanceRunTest} proves it.
 */
class LockConformanceSuiteCoverageTest {

    private static final String PROBING = "leasehold.conformance.probing";
    private static final String NO_LATENCY = "declared unsupported by the probe: the suite must skip with this reason";

    @Test
    void shouldMakeOneDynamicTestPerScenarioNamedAfterItInAContainerOfItsGuarantees() {
        List<String> tests = new ArrayList<>();
        List<List<String>> containers = new ArrayList<>();

        for (DynamicNode node : new WholeInMemorySuite().scenarios().toList()) {
            DynamicContainer container = assertInstanceOf(DynamicContainer.class, node);
            List<String> guarantees = List.of(container.getDisplayName().split(", "));
            containers.add(guarantees);
            for (DynamicNode child : container.getChildren().toList()) {
                DynamicTest test = assertInstanceOf(DynamicTest.class, child);
                tests.add(test.getDisplayName());
                Scenario scenario = ConformanceScenarios.named(test.getDisplayName());
                assertEquals(scenario.getGuarantees(), guarantees, "container of " + scenario.getName());
                assertEquals(
                        URI.create("leasehold-conformance:" + scenario.getName()),
                        test.getTestSourceUri().orElseThrow(),
                        "test source of " + scenario.getName());
            }
        }

        List<String> scenarios =
                ConformanceScenarios.getAll().stream().map(Scenario::getName).toList();
        assertEquals(scenarios.size(), tests.size(), "one dynamic test per scenario: " + tests);
        assertEquals(new TreeSet<>(scenarios), new TreeSet<>(tests), "scenarios vs dynamic tests");
        assertEquals(containers.stream().distinct().count(), containers.size(), "one container per guarantee list");
        List<List<String>> ordered = new ArrayList<>(containers);
        ordered.sort(LockConformanceSuite::compareGuarantees);
        assertEquals(ordered, containers, "containers in guarantee order");
        assertEquals(List.of("G1"), containers.get(0));
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

    @Test
    void shouldOrderGuaranteesByNumber() {
        List<List<String>> lists = new ArrayList<>(
                List.of(List.of("G10"), List.of("G2", "G6"), List.of("G1", "G3"), List.of("G2"), List.of("G1")));
        lists.sort(LockConformanceSuite::compareGuarantees);
        assertEquals(
                List.of(List.of("G1"), List.of("G1", "G3"), List.of("G2"), List.of("G2", "G6"), List.of("G10")), lists);
    }

    @Test
    void shouldPickTheNamedScenariosInTheSuitesOrder() {
        List<Scenario> all = ConformanceScenarios.getAll();
        String second = all.get(1).getName();
        String first = all.get(0).getName();

        List<Scenario> selected = LockConformanceSuite.select(all, " " + second + " ,," + first + "," + second);

        assertEquals(List.of(all.get(0), all.get(1)), selected);
        assertEquals(all, LockConformanceSuite.select(all, null));
        assertEquals(all, LockConformanceSuite.select(all, " "));
    }

    @Test
    void shouldRejectNamesThatAreNoScenarioListingEveryScenario() {
        List<Scenario> all = ConformanceScenarios.getAll();

        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> LockConformanceSuite.select(all, "shouldNotReleaseAnotherOwnersLock,shouldFly,shouldSwim"));

        assertTrue(
                e.getMessage()
                        .startsWith(LockConformanceSuite.SCENARIOS_PROPERTY
                                + "=shouldNotReleaseAnotherOwnersLock,shouldFly,shouldSwim names no conformance scenarios:"
                                + " shouldFly, shouldSwim; the " + all.size() + " scenarios are:\n"),
                e.getMessage());
        for (Scenario scenario : all) {
            assertTrue(e.getMessage().contains("\n" + scenario.getName()), scenario.getName());
        }
    }

    /** The whole suite on the in-memory backend (its tests run in parts: see {@link InMemoryConformancePart}). */
    private static final class WholeInMemorySuite extends LockConformanceSuite {
        @Override
        protected LockBackendFixture createFixture() {
            return new InMemoryFixture();
        }
    }
}
