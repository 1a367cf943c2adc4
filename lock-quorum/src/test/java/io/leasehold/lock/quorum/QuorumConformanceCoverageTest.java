package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.testkit.conformance.ConformanceScenarios;
import io.leasehold.lock.testkit.conformance.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The quorum's conformance parts together account for every scenario of the suite exactly once. */
class QuorumConformanceCoverageTest {

    @Test
    void shouldRunOrReportSkippedEveryScenarioOnceAcrossTheParts() {
        List<String> accounted = new ArrayList<>();
        for (QuorumConformancePart part : QuorumConformancePart.parts()) {
            for (Scenario scenario : ConformanceScenarios.getAll()) {
                boolean runs = part.runs(scenario);
                boolean skipped = part.inThisSuite(scenario)
                        && QuorumConformanceSuite.NOT_ON_A_QUORUM.containsKey(scenario.getName());
                if (runs || skipped) {
                    accounted.add(scenario.getName());
                }
            }
        }
        List<String> all =
                ConformanceScenarios.getAll().stream().map(Scenario::getName).toList();
        assertEquals(all.size(), accounted.size(), "scenarios run or skipped by the parts: " + accounted);
        assertEquals(new TreeSet<>(all), new TreeSet<>(accounted));
    }

    @Test
    void shouldNameOnlyScenariosThatExistAmongThoseNotOnAQuorum() {
        List<String> all =
                ConformanceScenarios.getAll().stream().map(Scenario::getName).toList();
        for (String name : QuorumConformanceSuite.NOT_ON_A_QUORUM.keySet()) {
            assertTrue(all.contains(name), "no conformance scenario named " + name);
        }
    }
}
