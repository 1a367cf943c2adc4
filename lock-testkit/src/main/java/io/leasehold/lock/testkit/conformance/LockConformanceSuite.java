package io.leasehold.lock.testkit.conformance;

import io.leasehold.lock.testkit.LockBackendFixture;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The conformance suite as a JUnit 5 test class: what every {@link io.leasehold.lock.spi.LockBackend}
 * must do, one test per scenario of {@code ConformanceScenarios}. A backend's test extends it and
 * supplies a fixture:
 *
 * <pre>{@code
 * class InMemoryConformanceTest extends LockConformanceSuite {
 *     @Override
 *     protected LockBackendFixture createFixture() {
 *         return new InMemoryFixture();
 *     }
 * }
 * }</pre>
 *
 * <p>One fixture serves the whole class (created before the first test, closed after the last);
 * its faults are cleared after every test. A scenario that needs a fault the fixture lists in
 * {@link LockBackendFixture#unsupportedFaults()} is reported as skipped, with the fixture's reason,
 * never as passed.
 *
 * <p><b>How the scenarios become tests.</b> The scenarios themselves live in {@code
 * ConformanceScenarios} (a Kotlin object: the Javadoc tool cannot link it, the module's Dokka pages
 * document it), shared with the kotest form ({@code lockConformanceTests}). This class lists none of
 * them: its one {@link TestFactory} method, {@link #scenarios()}, turns every scenario of {@code
 * ConformanceScenarios.getAll()} into a dynamic test named exactly after the scenario (e.g. {@code
 * shouldNotReleaseAnotherOwnersLock}), inside a container named after the guarantees it proves (e.g.
 * {@code G2, G6}), so a scenario added there runs here with no change to this class. An IDE shows
 * {@code MyConformanceTest > scenarios() > G2 > shouldNotReleaseAnotherOwnersLock}; Maven Surefire's
 * XML report has one {@code <testcase name="shouldNotReleaseAnotherOwnersLock"
 * classname="com.example.MyConformanceTest">} per scenario, and a skipped one holds a {@code <skipped>}
 * element with the fixture's reason.
 *
 * <p><b>Time limit.</b> Each scenario has 180 s. It runs on the test thread, as scenarios expect
 * (hold counts by thread, {@code callLocked} bodies that a loss interrupts); once its limit has
 * passed, a watchdog prints every thread's stack to stderr and interrupts the test thread (again every
 * 30 s until the scenario returns), and the scenario fails with a {@code TimeoutException} that names
 * it and shows where its thread was when the limit passed. The scenario is never abandoned while it
 * still uses the fixture. JUnit's {@code junit.jupiter.execution.timeout.mode} applies: {@code
 * disabled} turns the limit off, {@code disabled_on_debug} turns it off under a debugger.
 *
 * <p><b>Running some scenarios only.</b> Name them in the system property (or JUnit configuration
 * parameter) {@value #SCENARIOS_PROPERTY}, comma-separated:
 *
 * <pre>{@code
 * mvn verify -Dtest=MyConformanceTest -Dleasehold.conformance.scenarios=shouldNotReleaseAnotherOwnersLock,shouldNotPollWhileWaiting
 * }</pre>
 *
 * <p>Every conformance class of the run then runs those scenarios only; a name that is no scenario
 * fails {@code scenarios()} with the list of all names. In an IDE, set the property in the run
 * configuration's VM options. Surefire's own method filter cannot pick a scenario (Surefire 3.x,
 * checked with 3.6.1): it filters what JUnit discovers before it runs anything, which is the method
 * {@code scenarios}, not the dynamic tests it returns. {@code
 * -Dtest=MyConformanceTest#shouldNotReleaseAnotherOwnersLock} therefore selects the class but none
 * of its tests: Surefire runs nothing and reports success ({@code Tests run: 0}), whether or not
 * {@code -Dsurefire.failIfNoSpecifiedTests=false} is given; {@code -Dtest=MyConformanceTest#scenarios}
 * runs them all.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
// For scenarios() itself, which only lists the tests, and for a subclass's own test methods: the
// scenarios get their limit from ScenarioTimeout, since @Timeout does not reach dynamic tests.
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@ExtendWith(SuiteConfiguration.class)
public abstract class LockConformanceSuite {

    /**
     * The system property, or JUnit configuration parameter, that names the scenarios to run,
     * comma-separated: {@value}. Unset or blank, all of them run.
     */
    public static final String SCENARIOS_PROPERTY = "leasehold.conformance.scenarios";

    private static final Duration SCENARIO_TIMEOUT = Duration.ofSeconds(180);

    /** The URI scheme of a scenario's test source (see {@link #testSource}). */
    private static final String SOURCE_SCHEME = "leasehold-conformance";

    /** Guarantees by number ({@code G2} before {@code G10}). */
    private static final Comparator<String> GUARANTEE_ORDER =
            Comparator.comparingInt(LockConformanceSuite::guaranteeNumber).thenComparing(Comparator.naturalOrder());

    private LockBackendFixture fixture;

    // Set by SuiteConfiguration, before the tests run.
    private String scenarioNames;
    private boolean timeoutsApply = true;

    /**
     * The fixture to run the suite against; called once per test class.
     *
     * @return a new fixture, which the suite closes after the class's last test
     */
    protected abstract LockBackendFixture createFixture();

    /**
     * The fixture under test, for subclasses that add tests of their own.
     *
     * @return the fixture made by {@link #createFixture()}
     * @throws IllegalStateException before the class's first test
     */
    protected final LockBackendFixture fixture() {
        if (fixture == null) {
            throw new IllegalStateException("the fixture is created before the first test of "
                    + getClass().getName());
        }
        return fixture;
    }

    /** Creates the fixture, before the first test of the class. */
    @BeforeAll
    protected final void startFixture() {
        fixture = createFixture();
    }

    /** Closes the fixture, after the last test of the class. */
    @AfterAll
    protected final void closeFixture() {
        if (fixture != null) {
            fixture.close();
        }
    }

    /**
     * The conformance scenarios, one dynamic test each, named after the scenario, in one container
     * per list of guarantees (e.g. {@code G1, G3}), the containers in guarantee order; only the
     * scenarios named in {@value #SCENARIOS_PROPERTY} when it is set.
     *
     * @return the containers, for JUnit to run
     * @throws IllegalArgumentException if {@value #SCENARIOS_PROPERTY} names a scenario that does not exist
     */
    @TestFactory
    public final Stream<DynamicNode> scenarios() {
        Map<List<String>, List<Scenario>> byGuarantees = select(ConformanceScenarios.getAll(), scenarioNames).stream()
                .filter(this::runs)
                .collect(Collectors.groupingBy(Scenario::getGuarantees, LinkedHashMap::new, Collectors.toList()));
        return byGuarantees.entrySet().stream()
                .sorted(Map.Entry.comparingByKey(LockConformanceSuite::compareGuarantees))
                .map(group -> DynamicContainer.dynamicContainer(
                        String.join(", ", group.getKey()),
                        group.getValue().stream().map(this::test)));
    }

    /** Called by {@link SuiteConfiguration} before the tests run. */
    final void configure(String scenarioNames, boolean timeoutsApply) {
        this.scenarioNames = scenarioNames;
        this.timeoutsApply = timeoutsApply;
    }

    /**
     * Whether this class runs {@code scenario}: all of them by default. A subclass may split the suite
     * across classes that Surefire's forks run side by side, each running a share (the scenarios wait
     * on real time, not on the CPU); together they must run every scenario once.
     *
     * @param scenario a scenario of the suite
     * @return true if this class runs it
     */
    protected boolean runs(Scenario scenario) {
        return true;
    }

    /**
     * Whether {@code scenario} is in share {@code share} (from 0) of {@code shares}: every
     * {@code shares}-th scenario of the suite's order, from the share's index on; for {@link #runs}
     * of classes that split the suite among them.
     *
     * @param scenario a scenario of the suite
     * @param share    this class's share, from 0 to {@code shares - 1}
     * @param shares   how many classes split the suite
     * @return true if the scenario is in that share
     */
    protected static boolean inShare(Scenario scenario, int share, int shares) {
        return ConformanceScenarios.getAll().indexOf(scenario) % shares == share;
    }

    /**
     * The time limit of one scenario (180 s by default, far above what any scenario needs, so that a
     * hung scenario fails by name instead of hanging the build). A subclass may change it.
     *
     * @return the limit of one scenario
     */
    protected Duration scenarioTimeout() {
        return SCENARIO_TIMEOUT;
    }

    private DynamicTest test(Scenario scenario) {
        return DynamicTest.dynamicTest(scenario.getName(), testSource(scenario), () -> run(scenario));
    }

    private void run(Scenario scenario) throws Throwable {
        LockBackendFixture fixture = fixture();
        String skipReason = ConformanceScenarios.skipReason(scenario, fixture);
        if (skipReason != null) {
            Assumptions.abort(skipReason);
        }
        ScenarioTimeout.Body body = () -> ConformanceScenarios.run(scenario, fixture);
        if (timeoutsApply) {
            new ScenarioTimeout(scenarioTimeout(), ScenarioTimeout.REINTERRUPT, System.err)
                    .run("conformance scenario " + scenario + " on fixture '" + fixture.name() + "'", body);
        } else {
            body.run();
        }
    }

    /**
     * A URI that names the scenario ({@code leasehold-conformance:shouldNotReleaseAnotherOwnersLock}).
     * Without one, JUnit gives a dynamic test the {@code scenarios()} method as its source, and Surefire
     * then reports it as {@code scenarios()[2][1]}, not by its name; with a source that is neither a
     * method nor a class, Surefire reports its display name under the test class, and IDEs navigate to
     * the nearest source they know, {@code scenarios()}.
     */
    private static URI testSource(Scenario scenario) {
        try {
            return new URI(SOURCE_SCHEME, scenario.getName(), null);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("scenario name " + scenario.getName(), e);
        }
    }

    /**
     * The scenarios of {@code all} that {@code names} lists (comma-separated, blanks ignored), in the
     * order of {@code all}; all of them when {@code names} is null or blank.
     *
     * @throws IllegalArgumentException naming the names that are no scenario, and listing the scenarios
     */
    static List<Scenario> select(List<Scenario> all, String names) {
        if (names == null || names.isBlank()) {
            return all;
        }
        Set<String> wanted = Arrays.stream(names.split(","))
                .map(String::trim)
                .filter(name -> !name.isEmpty())
                .collect(Collectors.toCollection(LinkedHashSet::new));
        Set<String> known = all.stream().map(Scenario::getName).collect(Collectors.toCollection(LinkedHashSet::new));
        List<String> unknown = new ArrayList<>(wanted);
        unknown.removeAll(known);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(SCENARIOS_PROPERTY + "=" + names + " names "
                    + (unknown.size() == 1 ? "no conformance scenario: " : "no conformance scenarios: ")
                    + String.join(", ", unknown) + "; the " + known.size() + " scenarios are:\n"
                    + String.join("\n", known));
        }
        return all.stream()
                .filter(scenario -> wanted.contains(scenario.getName()))
                .toList();
    }

    /** Orders guarantee lists by number, guarantee by guarantee ({@code G1} &lt; {@code G1, G3} &lt; {@code G2}). */
    static int compareGuarantees(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int byGuarantee = GUARANTEE_ORDER.compare(a.get(i), b.get(i));
            if (byGuarantee != 0) {
                return byGuarantee;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    private static int guaranteeNumber(String guarantee) {
        return guarantee.matches("G\\d{1,9}") ? Integer.parseInt(guarantee.substring(1)) : Integer.MAX_VALUE;
    }
}
