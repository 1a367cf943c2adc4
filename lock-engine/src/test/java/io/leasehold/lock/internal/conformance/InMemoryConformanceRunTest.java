package io.leasehold.lock.internal.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.leasehold.lock.testkit.InMemoryFixture;
import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.conformance.ConformanceScenarios;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.conformance.Scenario;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.UriSource;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * How JUnit runs the conformance suite's dynamic tests on the in-memory backend (through the JUnit
 * Platform launcher, on probe suites that run only when a test here launches them): a scenario the
 * fixture cannot inject a fault for is skipped with the fixture's reason, one past its limit fails by
 * name, an unknown name in {@value LockConformanceSuite#SCENARIOS_PROPERTY} runs nothing; and the
 * in-memory parts together run every scenario once. The suite's own shape is proved in lock-testkit
 * ({@code LockConformanceSuiteCoverageTest}).
 */
class InMemoryConformanceRunTest {

    private static final String PROBING = "leasehold.conformance.probing";
    private static final String NO_LATENCY = "declared unsupported by the probe: the suite must skip with this reason";

    @Test
    void shouldRunEachPickedScenarioAsATestOfItsNameAndSkipWhatTheFixtureCannotInject() {
        Run run = Run.of(LatencylessProbe.class, "shouldNotBlockIndependentNames, shouldNotCountLatencyAsValidity");

        assertEquals(Set.of("shouldNotBlockIndependentNames", "shouldNotCountLatencyAsValidity"), run.results.keySet());
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, run.status("shouldNotBlockIndependentNames"));
        TestExecutionResult skipped = run.results.get("shouldNotCountLatencyAsValidity");
        assertEquals(TestExecutionResult.Status.ABORTED, skipped.getStatus(), "skipped, never passed");
        String reason = skipped.getThrowable().orElseThrow().getMessage();
        assertEquals(
                "fixture 'in-memory' cannot inject LATENCY: " + NO_LATENCY
                        + " (needed by shouldNotCountLatencyAsValidity)",
                reason);
        assertEquals("G1", run.parents.get("shouldNotBlockIndependentNames"));
        assertEquals("G4", run.parents.get("shouldNotCountLatencyAsValidity"));
        assertInstanceOf(UriSource.class, run.sources.get("shouldNotBlockIndependentNames"));
    }

    @Test
    void shouldFailAScenarioPastItsLimitByNameAndRunTheNextOneUninterrupted() {
        Run run = Run.of(
                ShortLimitProbe.class,
                "shouldKeepLockPastSeveralLeaseTimesWithAutoRenew,shouldRejectExtendAfterRelease");

        TestExecutionResult timedOut = run.results.get("shouldKeepLockPastSeveralLeaseTimesWithAutoRenew");
        assertEquals(TestExecutionResult.Status.FAILED, timedOut.getStatus());
        TimeoutException e =
                assertInstanceOf(TimeoutException.class, timedOut.getThrowable().orElseThrow());
        assertTrue(
                e.getMessage()
                        .startsWith("conformance scenario shouldKeepLockPastSeveralLeaseTimesWithAutoRenew (G5)"
                                + " on fixture 'in-memory' timed out after 500 ms"),
                e.getMessage());
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, run.status("shouldRejectExtendAfterRelease"));
    }

    @Test
    void shouldFailTheSuiteOnANameThatIsNoScenarioAndRunNothing() {
        Run run = Run.of(LatencylessProbe.class, "shouldNotBlockIndependentNames,shouldNotExist");

        assertEquals(Map.of(), run.results, "no scenario runs");
        TestExecutionResult factory = run.containers.get("scenarios()");
        assertEquals(TestExecutionResult.Status.FAILED, factory.getStatus());
        assertTrue(
                factory.getThrowable()
                        .orElseThrow()
                        .getMessage()
                        .contains("names no conformance scenario: shouldNotExist"),
                factory.getThrowable().orElseThrow().getMessage());
    }

    /** The outcome of running one probe suite through the JUnit Platform launcher. */
    private static final class Run implements TestExecutionListener {
        final Map<String, TestExecutionResult> results = new LinkedHashMap<>();
        final Map<String, TestExecutionResult> containers = new LinkedHashMap<>();
        final Map<String, String> parents = new LinkedHashMap<>();
        final Map<String, Object> sources = new LinkedHashMap<>();
        private TestPlan plan;

        static Run of(Class<? extends LockConformanceSuite> probe, String scenarios) {
            Run run = new Run();
            LauncherFactory.create()
                    .execute(
                            LauncherDiscoveryRequestBuilder.request()
                                    .selectors(selectClass(probe))
                                    .filters(EngineFilter.includeEngines("junit-jupiter"))
                                    .configurationParameter(PROBING, "true")
                                    .configurationParameter(LockConformanceSuite.SCENARIOS_PROPERTY, scenarios)
                                    .build(),
                            run);
            return run;
        }

        TestExecutionResult.Status status(String test) {
            TestExecutionResult result = results.get(test);
            assertTrue(result != null, "no result for " + test + " in " + results);
            result.getThrowable().ifPresent(t -> {
                if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                    throw new AssertionError(test + ": " + result, t);
                }
            });
            return result.getStatus();
        }

        @Override
        public void testPlanExecutionStarted(TestPlan testPlan) {
            plan = testPlan;
        }

        @Override
        public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
            if (identifier.isTest()) {
                results.put(identifier.getDisplayName(), result);
                parents.put(
                        identifier.getDisplayName(),
                        plan.getParent(identifier)
                                .map(TestIdentifier::getDisplayName)
                                .orElse(null));
                sources.put(identifier.getDisplayName(), identifier.getSource().orElse(null));
            } else {
                containers.put(identifier.getDisplayName(), result);
            }
        }
    }

    /** Runs a probe suite only when a test here launches it, never on its own (e.g. from an IDE). */
    static final class OnlyWhenProbing implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter(PROBING).isPresent()
                    ? ConditionEvaluationResult.enabled("launched by InMemoryConformanceRunTest")
                    : ConditionEvaluationResult.disabled("a probe that InMemoryConformanceRunTest launches");
        }
    }

    /** The suite on the in-memory backend, declaring that it cannot inject latency. */
    @ExtendWith(OnlyWhenProbing.class)
    static class LatencylessProbe extends LockConformanceSuite {
        @Override
        protected LockBackendFixture createFixture() {
            InMemoryFixture delegate = new InMemoryFixture();
            return (LockBackendFixture) Proxy.newProxyInstance(
                    LockBackendFixture.class.getClassLoader(),
                    new Class<?>[] {LockBackendFixture.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("unsupportedFaults")) {
                            return Map.of(LockBackendFixture.Fault.LATENCY, NO_LATENCY);
                        }
                        try {
                            return method.invoke(delegate, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }

    /** The suite on the in-memory backend, with a limit of 500 ms per scenario. */
    @ExtendWith(OnlyWhenProbing.class)
    static class ShortLimitProbe extends LockConformanceSuite {
        @Override
        protected LockBackendFixture createFixture() {
            return new InMemoryFixture();
        }

        @Override
        protected Duration scenarioTimeout() {
            return Duration.ofMillis(500);
        }
    }

    @Test
    void shouldRunEveryScenarioOnceAcrossTheInMemoryParts() {
        List<String> run = new ArrayList<>();
        for (InMemoryConformancePart part : List.of(
                new InMemoryConformancePart1Test(),
                new InMemoryConformancePart2Test(),
                new InMemoryConformancePart3Test())) {
            List<String> names = testNames(part.scenarios());
            assertTrue(!names.isEmpty(), "part " + part.getClass().getSimpleName() + " runs no scenario");
            run.addAll(names);
        }
        List<String> scenarios =
                ConformanceScenarios.getAll().stream().map(Scenario::getName).toList();
        assertEquals(scenarios.size(), run.size(), "scenarios run by the parts: " + run);
        assertEquals(new TreeSet<>(scenarios), new TreeSet<>(run), "scenarios vs the parts' tests");
    }

    private static List<String> testNames(Stream<DynamicNode> nodes) {
        List<String> names = new ArrayList<>();
        for (DynamicNode node : nodes.toList()) {
            if (node instanceof DynamicContainer) {
                names.addAll(testNames(((DynamicContainer) node).getChildren().map(DynamicNode.class::cast)));
            } else {
                names.add(node.getDisplayName());
            }
        }
        return names;
    }
}
