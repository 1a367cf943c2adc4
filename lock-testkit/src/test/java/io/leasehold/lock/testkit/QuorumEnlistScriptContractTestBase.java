package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.await;
import static io.leasehold.lock.testkit.ScriptCaller.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What quorum-enlist.lua (a node's standing in a quorum of independent masters) must do, on the
 * in-memory emulation and on a real redis-server alike: tell the standing without writing; join a node
 * of a new quorum only where it has no record; make a node that lost its data sit out for the delay by
 * its own clock, keeping a floor that survived; seed it once the delay is over, never lowering its
 * floor; refuse what Leasehold did not write. Each test has its own key prefix, hence its own record.
 */
abstract class QuorumEnlistScriptContractTestBase {

    private static final LuaScript ENLIST = LuaScript.bundled(ScriptNames.QUORUM_ENLIST);
    private static final long NO_RECORD = 0;
    private static final long ANOTHER_PROCESS = 1;
    private static final long SITTING_OUT = 2;
    private static final long AWAITING_SEED = 3;
    private static final long TAKING_PART = 4;
    private static final String DAY_MS = "86400000";
    /** The client's largest lease, which join and reset write into the record. */
    private static final String LEASE = "300000";

    protected LockBackendFixture fixture;
    private LockBackend backend;
    private String record;

    /** This test's quorum record key. */
    protected String record() {
        return record;
    }

    /** The backend under test. */
    protected LockBackend backend() {
        return backend;
    }

    protected abstract LockBackendFixture createFixture();

    /** HGET {@code key} {@code field}, read directly from the store. */
    protected abstract Optional<String> hashField(String key, String field);

    /** HSET {@code key} {@code field} {@code value}, written directly to the store. */
    protected abstract void writeHashField(String key, String field, String value);

    @BeforeEach
    void startFixture() {
        fixture = createFixture();
        backend = fixture.newBackend();
        record = LockKeys.quorumRecordKey(
                "enlist-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":");
    }

    @AfterEach
    void closeFixture() {
        backend.close();
        fixture.close();
    }

    private CompletableFuture<Object> enlistAsync(String step, String arg) {
        return enlistAsync(step, arg, LEASE);
    }

    private CompletableFuture<Object> enlistAsync(String step, String arg, String lease) {
        // a join names the server process its probe answered from; a reset takes a floor ("0": none)
        String fourth = step.equals("join") ? runId() : "0";
        return backend.eval(ENLIST, List.of(record), List.of(step, arg, lease, fourth));
    }

    /** The server's run_id, as a probe tells it; '' when the probe fails (a record Leasehold did not write). */
    private String runId() {
        return await(backend.eval(ENLIST, List.of(record), List.of("probe", ""))
                .handle((probe, failure) -> failure == null ? (String) ((List<?>) probe).get(4) : ""));
    }

    /**
     * A reply's first four entries: standing, floor, wait and lease (the fifth is the run_id, the sixth
     * and seventh the server's maxmemory and maxmemory-policy).
     */
    private static List<?> head(List<?> reply) {
        return reply.subList(0, 4);
    }

    private List<?> enlist(String step, String arg) {
        return (List<?>) await(enlistAsync(step, arg));
    }

    private static long standing(List<?> reply) {
        return (Long) reply.get(0);
    }

    @Test
    void shouldTellThatThereIsNoRecordAndWriteNothing() {
        assertEquals(List.of(NO_RECORD, "0", 0L, "0"), head(enlist("probe", "")));
        assertEquals(Optional.empty(), hashField(record, "run"), "a probe writes nothing");
    }

    @Test
    void shouldTellTheServersEvictionSettingsAfterTheRunIdInEveryReply() {
        List<?> probe = enlist("probe", "");
        assertEquals(7, probe.size(), () -> "{standing, floor, wait, lease, run, maxmemory, policy}: " + probe);
        assertEquals(List.of("0", "noeviction"), probe.subList(5, 7), "a server that never evicts");
        List<?> joined = enlist("join", "3");
        assertEquals(List.of("0", "noeviction"), joined.subList(5, 7), "after a step too");
    }

    @Test
    void shouldJoinANodeWithoutARecordAtOnceAndLeaveAnExistingRecordAlone() {
        assertEquals(List.of(TAKING_PART, "7", 0L, LEASE), head(enlist("join", "7")));
        assertEquals(List.of(TAKING_PART, "7", 0L, LEASE), head(enlist("probe", "")));

        fixture.deleteKey(record);
        enlist("reset", DAY_MS);
        assertEquals(SITTING_OUT, standing(enlist("join", "9")), "a join never ends a node's sitting out");
        assertEquals(Optional.of("0"), hashField(record, "floor"), "nor writes its floor");
    }

    @Test
    void shouldMakeANodeThatLostItsDataSitOutForTheDelay() {
        List<?> reply = enlist("reset", DAY_MS);

        assertEquals(SITTING_OUT, standing(reply), () -> "sitting out: " + reply);
        long wait = (Long) reply.get(2);
        assertTrue(wait > 86_000_000 && wait <= 86_400_000, () -> "the delay, by the node's clock: " + reply);
        assertEquals(SITTING_OUT, standing(enlist("probe", "")));
        assertEquals(SITTING_OUT, standing(enlist("seed", "5")), "no seed before the delay is over");
        assertEquals(Optional.of("0"), hashField(record, "floor"), "no floor written by that seed");
    }

    @Test
    void shouldResetARecordOfAnotherServerProcessKeepingItsFloor() {
        enlist("join", "40");
        writeHashField(record, "run", "0123456789abcdef0123456789abcdef01234567"); // restarted with persistence

        assertEquals(List.of(ANOTHER_PROCESS, "40", 0L, LEASE), head(enlist("probe", "")));
        assertEquals(SITTING_OUT, standing(enlist("reset", DAY_MS)));
        assertEquals(Optional.of("40"), hashField(record, "floor"), "a floor that survived is kept");
    }

    @Test
    void shouldNotResetANodeThatTakesPart() {
        enlist("join", "3");

        assertEquals(List.of(TAKING_PART, "3", 0L, LEASE), head(enlist("reset", DAY_MS)));
    }

    @Test
    void shouldSeedANodeOnceItsDelayIsOverNeverLoweringItsFloor() {
        enlist("join", "50");
        writeHashField(record, "run", "0123456789abcdef0123456789abcdef01234567");
        assertEquals(List.of(AWAITING_SEED, "50", 0L, LEASE), head(enlist("reset", "0")));

        assertEquals(List.of(TAKING_PART, "50", 0L, LEASE), head(enlist("seed", "20")), "a lower seed keeps the floor");

        fixture.deleteKey(record);
        enlist("reset", "0");
        assertEquals(
                List.of(TAKING_PART, "90", 0L, LEASE), head(enlist("seed", "90")), "raised to the majority's floor");
        assertEquals(List.of(TAKING_PART, "90", 0L, LEASE), head(enlist("seed", "95")), "seeded once only");
    }

    @Test
    void shouldRefuseAnUnknownStepOrAnArgumentThatIsNoIntegerAndWriteNothing() {
        assertTrue(failure(enlistAsync("grant", "1"))
                .getMessage()
                .contains("step must be 'probe', 'join', 'reset' or" + " 'seed', but was 'grant'"));
        assertTrue(failure(enlistAsync("reset", "-1"))
                .getMessage()
                .contains("delay must be a decimal integer below" + " 2^53 - 1, but was '-1'"));
        assertTrue(failure(enlistAsync("join", "9007199254740991"))
                .getMessage()
                .contains("floor must be a decimal" + " integer below 2^53 - 1, but was '9007199254740991'"));
        assertEquals(Optional.empty(), hashField(record, "run"), "nothing written");
    }

    @Test
    void shouldRefuseARecordThatIsNoHashOrWhoseFloorIsNoCounterNamingTheKey() {
        fixture.writeKey(record, "not a record");
        Throwable notAHash = failure(enlistAsync("probe", ""));
        assertTrue(
                notAHash.getMessage()
                        .contains("key '" + record + "' holds a value that is not a Leasehold quorum record"),
                () -> "names the key: " + notAHash);

        fixture.deleteKey(record);
        writeHashField(record, "floor", "x");
        Throwable badFloor = failure(enlistAsync("join", "1"));
        assertTrue(
                badFloor.getMessage()
                        .contains("key '" + record + "' holds a quorum record whose 'floor' is not a"
                                + " decimal integer"),
                () -> "names the key and the rule: " + badFloor);
    }

    @Test
    void shouldWriteTheClientsLargestLeaseOnJoinAndResetAndRefuseOneThatIsNoPositiveInteger() {
        assertEquals(List.of(TAKING_PART, "0", 0L, "1000"), head(enlist("join", "0", "1000")));
        fixture.deleteKey(record);
        assertEquals("2000", enlist("reset", "0", "2000").get(3), "a reset writes the resetting client's");
        assertEquals("2000", enlist("seed", "0", "9").get(3), "a seed keeps it");

        for (String bad : List.of("0", "", "-3")) {
            Throwable refused = failure(enlistAsync("join", "0", bad));
            assertTrue(
                    refused.getMessage()
                            .contains("largest lease must be a positive integer of ms, but was '" + bad + "'"),
                    () -> "names the rule and the value: " + refused);
        }
    }

    private List<?> enlist(String step, String arg, String lease) {
        return (List<?>) await(enlistAsync(step, arg, lease));
    }

    @Test
    void shouldNotJoinAServerProcessOtherThanTheOneTheProbeAnsweredFrom() {
        List<?> joined = (List<?>) await(backend.eval(
                ENLIST, List.of(record), List.of("join", "0", LEASE, "0123456789abcdef0123456789abcdef01234567")));

        assertEquals(NO_RECORD, standing(joined), "a join replayed after a restart, or delayed past one");
        assertEquals(Optional.empty(), hashField(record, "run"), "nothing written");
    }

    @Test
    void shouldResetWithTheLargestOfTheSurvivingFloorAndTheGivenOne() {
        enlist("join", "40");
        writeHashField(record, "run", "0123456789abcdef0123456789abcdef01234567");
        List<?> raised = (List<?>) await(backend.eval(ENLIST, List.of(record), List.of("reset", DAY_MS, LEASE, "75")));
        assertEquals("75", raised.get(1), "the floor read elsewhere, above the surviving one");

        fixture.deleteKey(record);
        enlist("join", "0");
        writeHashField(record, "floor", "90");
        writeHashField(record, "run", "0123456789abcdef0123456789abcdef01234567");
        List<?> kept = (List<?>) await(backend.eval(ENLIST, List.of(record), List.of("reset", DAY_MS, LEASE, "75")));
        assertEquals("90", kept.get(1), "the surviving floor, above the one read elsewhere");
        assertTrue(failure(backend.eval(ENLIST, List.of(record), List.of("reset", DAY_MS, LEASE, "x")))
                .getMessage()
                .contains("floor must be a decimal integer below 2^53 - 1, but was 'x'"));
    }
}
