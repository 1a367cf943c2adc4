package io.leasehold.lock.quorum;

import io.leasehold.lock.testkit.conformance.ConformanceScenarios;
import io.leasehold.lock.testkit.conformance.LockConformanceSuite;
import io.leasehold.lock.testkit.conformance.Scenario;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The JUnit 5 conformance suite on a quorum ({@link QuorumFixture}, whose members a subclass chooses).
 *
 * <p>The scenarios of a behaviour a quorum does not have by design ({@link #NOT_ON_A_QUORUM}, each with
 * its reason) do not run: each is reported as a skipped test of its own name with that reason
 * ({@link #notOnAQuorum()}), never dropped silently; {@link QuorumConformanceCoverageTest} checks that
 * every scenario is run or reported once.
 */
abstract class QuorumConformanceSuite extends LockConformanceSuite {

    private static final String NO_PLACES = "a quorum's waiters take no place in a member's wait queue (each member"
            + " would order them by when each call reached it: docs/design/quorum-locks.md, \"Waiting\") and a"
            + " release hands nothing over (R13), so no script bounds how long a client's local waiters keep the"
            + " lock from another client's waiter: it gets in when its ask wins the race, as on any lock(name)"
            + " without places";
    private static final String NO_HANDOFF = "a quorum hands no lock over within a release (handoff.lua grants per"
            + " member and could land on some of them only, R13): the release releases, and the local head asks";

    /** Scenarios of behaviour a quorum does not have by design, with the reason. */
    static final Map<String, String> NOT_ON_A_QUORUM = notOnAQuorum(
            "shouldLetAnotherClientsQueuedWaiterInOnceEachLocalWaiterHadItsTurn", NO_PLACES,
            "shouldLetAnotherClientsQueuedWaiterInWithinEightLocalHandoffs", NO_PLACES,
            "shouldHandTheLockToTheNextLocalWaiterInTheReleaseCall", NO_HANDOFF);

    /** Whether this class runs or reports {@code scenario} at all (every scenario, unless split into parts). */
    boolean inThisSuite(Scenario scenario) {
        return true;
    }

    /** This class's scenarios, but those a quorum does not have. */
    @Override
    protected boolean runs(Scenario scenario) {
        return inThisSuite(scenario) && !NOT_ON_A_QUORUM.containsKey(scenario.getName());
    }

    /** This class's scenarios that a quorum does not have, each a skipped test of its name with the reason. */
    @TestFactory
    Stream<DynamicTest> notOnAQuorum() {
        return ConformanceScenarios.getAll().stream()
                .filter(this::inThisSuite)
                .filter(s -> NOT_ON_A_QUORUM.containsKey(s.getName()))
                .map(s -> DynamicTest.dynamicTest(
                        s.getName(), () -> Assumptions.abort("not on a quorum: " + NOT_ON_A_QUORUM.get(s.getName()))));
    }

    private static Map<String, String> notOnAQuorum(String... nameThenReason) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < nameThenReason.length; i += 2) {
            map.put(nameThenReason[i], nameThenReason[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(map);
    }
}
