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
 * What quorum-commit.lua (phase 2 of an acquisition over a quorum of independent masters) must do, on
 * the in-memory emulation and on a real redis-server alike: make the quorum's token the lock's on this
 * node, keeping its TTL (or setting the lease given, for a fair waiter), only above the node's floor (else tell the floor), and raise the name's
 * counter and the node's floor to it, never lower; commit nothing where the grant is gone; refuse
 * what Leasehold did not write; commit nothing on a node that takes no part. Each test has its own key
 * prefix, so that the node-wide floor of one test is not another's (a shared server needs no flush),
 * and starts with the node taking part (its record joined, floor 0: quorum-enlist.lua).
 */
abstract class QuorumCommitScriptContractTestBase {

    private static final LuaScript ACQUIRE = LuaScript.bundled(ScriptNames.ACQUIRE);
    private static final LuaScript RELEASE = LuaScript.bundled(ScriptNames.RELEASE);
    private static final LuaScript COMMIT = LuaScript.bundled(ScriptNames.QUORUM_COMMIT);
    private static final LuaScript ENLIST = LuaScript.bundled(ScriptNames.QUORUM_ENLIST);
    private static final long LEASE_MS = 60_000;
    private static final long COUNTER_TTL_MS = 3_600_000;
    /** The quorum's largest lease, as the record holds it. */
    private static final String LARGEST_LEASE = "300000";
    /** Above any TIME in microseconds, so that the quorum token is the largest the node has seen. */
    private static final long AHEAD = 1_000_000_000;

    protected LockBackendFixture fixture;
    private LockBackend backend;
    private String prefix;

    protected abstract LockBackendFixture createFixture();

    /** PTTL of {@code key}, read directly from the store (-2 when absent). */
    protected abstract long pttl(String key);

    /** GET {@code key}, read directly from the store. */
    protected abstract Optional<String> get(String key);

    /** HGET {@code key} {@code field}, read directly from the store. */
    protected abstract Optional<String> hashField(String key, String field);

    /** HSET {@code key} {@code field} {@code value}, written directly to the store. */
    protected abstract void writeHashField(String key, String field, String value);

    @BeforeEach
    void startFixture() {
        fixture = createFixture();
        backend = fixture.newBackend();
        prefix = "quorum-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":";
        enlist("join", "0");
    }

    private List<?> enlist(String step, String arg) {
        String fourth = "0"; // a reset's floor
        if (step.equals("join")) { // a join names the server process its probe answered from
            fourth =
                    (String) ((List<?>) await(backend.eval(ENLIST, List.of(recordKey()), List.of("probe", "")))).get(4);
        }
        return (List<?>) await(backend.eval(ENLIST, List.of(recordKey()), List.of(step, arg, LARGEST_LEASE, fourth)));
    }

    @AfterEach
    void closeFixture() {
        backend.close();
        fixture.close();
    }

    private String lockKey(String name) {
        return LockKeys.lockKey(prefix, name);
    }

    private String fenceKey(String name) {
        return LockKeys.fenceKey(prefix, name);
    }

    private String recordKey() {
        return LockKeys.quorumRecordKey(prefix);
    }

    private Optional<String> floor() {
        return hashField(recordKey(), "floor");
    }

    /** Phase 1 on this node: acquire.lua, taking no place; the granted value "owner:token". */
    private String grant(String name, String owner) {
        List<?> reply = acquire(name, owner);
        assertEquals(1L, reply.get(0), () -> owner + " is granted " + name + ": " + reply);
        return owner + ":" + reply.get(1);
    }

    private List<?> acquire(String name, String owner) {
        List<String> keys = List.of(
                lockKey(name),
                fenceKey(name),
                LockKeys.queueKey(prefix, name),
                LockKeys.waitersKey(prefix, name),
                LockKeys.releaseChannel(prefix, name));
        return (List<?>) await(backend.eval(
                ACQUIRE,
                keys,
                List.of(owner, Long.toString(LEASE_MS), Long.toString(COUNTER_TTL_MS), "1500", "SPUBLISH", "1")));
    }

    private Object release(String name, String owner) {
        List<String> keys = List.of(
                lockKey(name),
                fenceKey(name),
                LockKeys.queueKey(prefix, name),
                LockKeys.waitersKey(prefix, name),
                LockKeys.releaseChannel(prefix, name),
                LockKeys.yieldMarkerKey(prefix, name));
        return await(backend.eval(RELEASE, keys, List.of(owner, Long.toString(COUNTER_TTL_MS), "1500", "SPUBLISH")));
    }

    private CompletableFuture<Object> commitAsync(String name, String granted, long quorumToken) {
        return commitAsync(name, granted, Long.toString(quorumToken));
    }

    private CompletableFuture<Object> commitAsync(String name, String granted, String quorumToken) {
        return commitAsync(name, granted, quorumToken, Long.toString(COUNTER_TTL_MS));
    }

    private CompletableFuture<Object> commitAsync(String name, String granted, String quorumToken, String counterTtl) {
        return commitAsync(name, granted, quorumToken, counterTtl, LARGEST_LEASE);
    }

    private CompletableFuture<Object> commitAsync(
            String name, String granted, String quorumToken, String counterTtl, String largestLease) {
        return backend.eval(
                COMMIT,
                List.of(lockKey(name), fenceKey(name), recordKey()),
                List.of(granted, quorumToken, counterTtl, largestLease));
    }

    /** A fair waiter's commit: with the lease {@code leaseMs} (ARGV[5]) for the lock's TTL. */
    private CompletableFuture<Object> fairCommitAsync(String name, String granted, String quorumToken, String leaseMs) {
        return backend.eval(
                COMMIT,
                List.of(lockKey(name), fenceKey(name), recordKey()),
                List.of(granted, quorumToken, Long.toString(COUNTER_TTL_MS), LARGEST_LEASE, leaseMs));
    }

    private List<?> commit(String name, String granted, long quorumToken) {
        return (List<?>) await(commitAsync(name, granted, quorumToken));
    }

    private static long tokenOf(String granted) {
        return Long.parseLong(granted.substring(granted.indexOf(':') + 1));
    }

    @Test
    void shouldMakeTheQuorumTokenTheLocksKeepingItsTtlAndRaiseTheCounterAndTheFloor() {
        String granted = grant("orders", "a1");
        long quorumToken = tokenOf(granted) + AHEAD;

        List<?> reply = commit("orders", granted, quorumToken);

        assertEquals(1L, reply.get(0), () -> "committed: " + reply);
        long ttl = (Long) reply.get(1);
        assertTrue(ttl > 0 && ttl <= LEASE_MS, () -> "the grant's TTL, kept: " + reply);
        assertTrue(pttl(lockKey("orders")) <= LEASE_MS, "no new TTL");
        assertEquals(Optional.of("a1:" + quorumToken), get(lockKey("orders")));
        assertEquals(Optional.of(Long.toString(quorumToken)), get(fenceKey("orders")));
        assertTrue(pttl(fenceKey("orders")) > LEASE_MS, "the counter's idle TTL");
        assertEquals(Optional.of(Long.toString(quorumToken)), floor());
        assertEquals(-1L, pttl(recordKey()), "the record never expires");
    }

    @Test
    void shouldSetTheLeaseWhenGivenOne() {
        String granted = grant("orders", "a1");
        long quorumToken = tokenOf(granted) + AHEAD;

        List<?> reply = (List<?>) await(fairCommitAsync("orders", granted, Long.toString(quorumToken), "90000"));

        assertEquals(1L, reply.get(0), () -> "committed: " + reply);
        long ttl = (Long) reply.get(1);
        assertTrue(ttl > LEASE_MS && ttl <= 90_000, () -> "the lease given, from now: " + reply);
        long lease = pttl(lockKey("orders"));
        assertTrue(lease > LEASE_MS && lease <= 90_000, "the lock's TTL: " + lease);
        assertEquals(Optional.of("a1:" + quorumToken), get(lockKey("orders")));
        assertEquals(Optional.of(Long.toString(quorumToken)), floor());
    }

    @Test
    void shouldRefuseALeaseThatIsNoPositiveIntegerAndWriteNothing() {
        String granted = grant("orders", "a1");
        String quorumToken = Long.toString(tokenOf(granted) + AHEAD);

        for (String lease : List.of("0", "-5", "", "5x", "9007199254740991")) {
            Throwable refused = failure(fairCommitAsync("orders", granted, quorumToken, lease));
            assertTrue(
                    refused.getMessage().contains("lease must be a positive integer of ms, but was '" + lease + "'"),
                    () -> "names the rule and the value: " + refused);
        }
        assertEquals(Optional.of(granted), get(lockKey("orders")), "nothing written");
        assertTrue(pttl(lockKey("orders")) <= LEASE_MS, "the grant's TTL");
        assertEquals(Optional.of("0"), floor());
    }

    @Test
    void shouldLetTheOwnerReleaseTheCommittedLockAndGrantTheNextAHigherToken() {
        String granted = grant("orders", "a1");
        long quorumToken = tokenOf(granted) + AHEAD;
        commit("orders", granted, quorumToken);

        List<?> contended = acquire("orders", "b1");
        assertEquals(
                List.of(0L, Long.toString(quorumToken)),
                List.copyOf(contended.subList(0, 2)),
                "held, with the quorum token (a string, as every token in a reply)");
        assertEquals(1L, release("orders", "a1"));
        String next = grant("orders", "b1");

        assertTrue(tokenOf(next) > quorumToken, () -> "above the committed token: " + next);
    }

    @Test
    void shouldAnswerAResentCommitAsCommittedAndChangeNothing() {
        String granted = grant("orders", "a1");
        long quorumToken = tokenOf(granted) + AHEAD;
        commit("orders", granted, quorumToken);

        List<?> again = commit("orders", granted, quorumToken);

        assertEquals(1L, again.get(0), () -> "its reply was lost: the resend answers committed, " + again);
        assertEquals(Optional.of("a1:" + quorumToken), get(lockKey("orders")));
    }

    @Test
    void shouldCommitNothingWhereTheGrantIsGone() {
        String granted = grant("orders", "a1");
        release("orders", "a1");
        String counterBefore = get(fenceKey("orders")).orElseThrow();

        List<?> reply = commit("orders", granted, tokenOf(granted) + AHEAD);

        assertEquals(List.of(0L), reply);
        assertEquals(Optional.empty(), get(lockKey("orders")), "no lock made");
        assertEquals(Optional.of(counterBefore), get(fenceKey("orders")), "the counter untouched");
        assertEquals(Optional.of("0"), floor(), "no floor written");
    }

    @Test
    void shouldNotCommitOverAnotherOwnersLockNorAnotherGrantOfTheSameOwner() {
        String granted = grant("orders", "a1");
        release("orders", "a1");
        String thief = grant("orders", "b1");
        String sameOwnerLater = grant("invoices", "a1");
        long quorumToken = tokenOf(sameOwnerLater) + AHEAD;

        assertEquals(List.of(0L), commit("orders", granted, quorumToken), "b1 holds it now");
        assertEquals(Optional.of(thief), get(lockKey("orders")));
        assertEquals(
                List.of(0L),
                commit("invoices", "a1:" + (tokenOf(sameOwnerLater) - 1), quorumToken),
                "the same owner's value with another token is another grant");
        assertEquals(Optional.of(sameOwnerLater), get(lockKey("invoices")));
    }

    @Test
    void shouldRefuseAQuorumTokenNotAboveTheNodesFloorAndTellTheFloor() {
        String high = grant("orders", "a1");
        long highToken = tokenOf(high) + 2 * AHEAD;
        commit("orders", high, highToken);
        String low = grant("invoices", "b1");
        long lowToken = tokenOf(low) + AHEAD;

        List<?> refused = commit("invoices", low, lowToken);

        assertEquals(List.of(-1L, Long.toString(highToken)), refused, "the floor is the node's, across names");
        assertEquals(Optional.of(low), get(lockKey("invoices")), "nothing written");
        assertEquals(Optional.of(Long.toString(highToken)), floor());
        List<?> above = commit("invoices", low, highToken + 1);
        assertEquals(1L, above.get(0), () -> "committed above the floor: " + above);
        assertEquals(Optional.of("b1:" + (highToken + 1)), get(lockKey("invoices")));
        assertEquals(Optional.of(Long.toString(highToken + 1)), floor());
    }

    @Test
    void shouldCommitAgainFromAnEarlierCommitsValueWithAHigherToken() {
        String granted = grant("orders", "a1");
        long first = tokenOf(granted) + AHEAD;
        commit("orders", granted, first);

        List<?> again = commit("orders", "a1:" + first, first + 10);

        assertEquals(1L, again.get(0), () -> "a commit that another node's floor made the attempt redo: " + again);
        assertEquals(Optional.of("a1:" + (first + 10)), get(lockKey("orders")));
        assertEquals(Optional.of(Long.toString(first + 10)), floor());
    }

    @Test
    void shouldNeverLowerTheCounter() {
        String granted = grant("orders", "a1");
        long quorumToken = tokenOf(granted) + AHEAD;
        fixture.writeKey(fenceKey("orders"), Long.toString(quorumToken + 5));

        assertEquals(1L, commit("orders", granted, quorumToken).get(0));

        assertEquals(Optional.of(Long.toString(quorumToken + 5)), get(fenceKey("orders")), "a higher counter stays");
        assertTrue(pttl(fenceKey("orders")) > LEASE_MS, "and lives on for its idle TTL");
    }

    @Test
    void shouldRefuseAQuorumTokenThatIsNoDecimalInteger() {
        String granted = grant("orders", "a1");

        assertTrue(
                failure(commitAsync("orders", granted, "12x"))
                        .getMessage()
                        .contains("quorum token must be a decimal integer"),
                "not an integer");
        assertTrue(
                failure(commitAsync("orders", granted, "9007199254740991"))
                        .getMessage()
                        .contains("below 2^53 - 1"),
                "too large for a Lua double");
        assertEquals(Optional.of(granted), get(lockKey("orders")), "nothing written");
    }

    @Test
    void shouldCommitAQuorumTokenBelowALateNodesOwnGrantWithoutLoweringItsCounter() {
        // a node whose grant came after the majority had decided T: its clock had moved on past T
        String granted = grant("orders", "a1");
        long quorumToken = tokenOf(granted) - 1;

        List<?> reply = commit("orders", granted, quorumToken);

        assertEquals(1L, reply.get(0), "committed: " + reply);
        assertEquals(Optional.of("a1:" + quorumToken), get(lockKey("orders")), "the lease's value");
        assertEquals(
                Optional.of(Long.toString(tokenOf(granted))),
                get(fenceKey("orders")),
                "the node's counter is not lowered");
        assertEquals(Optional.of(Long.toString(quorumToken)), floor(), "the floor is raised to the lease's token");
    }

    @Test
    void shouldRefuseAQuorumTokenEqualToTheNodesOwnGrantSoThatOnlyACommitWritesTheCommittedValue() {
        String granted = grant("orders", "a1");
        commit("invoices", grant("invoices", "b1"), tokenOf(granted) + AHEAD); // the floor is above both

        Throwable refused = failure(commitAsync("orders", granted, tokenOf(granted)));

        assertTrue(
                refused.getMessage().contains("with a token other than the quorum token"),
                () -> "the node that granted the largest token must not take its own value for a commit: " + refused);
        assertEquals(Optional.of(granted), get(lockKey("orders")), "nothing written");
    }

    @Test
    void shouldTellTheFloorToALaterLeaseOfTheSameNameAfterItsCounterExpired() {
        String first = grant("orders", "a1");
        long committed = tokenOf(first) + AHEAD;
        commit("orders", first, committed);
        release("orders", "a1");
        fixture.deleteKey(fenceKey("orders")); // its idle TTL ran out: the next token comes from the clock
        String second = grant("orders", "b1");

        List<?> reply = commit("orders", second, tokenOf(second) + 1);

        assertTrue(tokenOf(second) < committed, "the clock is behind the committed token: " + second);
        assertEquals(List.of(-1L, Long.toString(committed)), reply, "a token below the first lease's is refused");
        assertEquals(Optional.of(second), get(lockKey("orders")), "nothing written");
    }

    @Test
    void shouldRefuseACounterTtlThatIsNoPositiveIntegerAndWriteNothing() {
        String granted = grant("orders", "a1");
        String quorumToken = Long.toString(tokenOf(granted) + AHEAD);

        for (String ttl : List.of("0", "-5", "", "5x")) {
            Throwable refused = failure(commitAsync("orders", granted, quorumToken, ttl));
            assertTrue(
                    refused.getMessage()
                            .contains("counter idle TTL must be a positive integer of ms, but was '" + ttl + "'"),
                    () -> "names the rule and the value: " + refused);
        }
        assertEquals(Optional.of(granted), get(lockKey("orders")), "nothing written");
        assertEquals(Optional.of("0"), floor());
    }

    @Test
    void shouldRefuseARecordThatIsNoHashNamingTheKeyAndWriteNothing() {
        String granted = grant("orders", "a1");
        fixture.writeKey(recordKey(), "not a record");

        Throwable refused = failure(commitAsync("orders", granted, tokenOf(granted) + AHEAD));

        assertTrue(
                refused.getMessage()
                        .contains("key '" + recordKey() + "' holds a value that is not a Leasehold quorum record"),
                () -> "names the key: " + refused);
        assertEquals(Optional.of(granted), get(lockKey("orders")), "nothing written");
    }

    @Test
    void shouldRefuseAFloorThatIsNoCounterNamingTheKey() {
        String granted = grant("orders", "a1");
        writeHashField(recordKey(), "floor", "-7");

        Throwable refused = failure(commitAsync("orders", granted, tokenOf(granted) + AHEAD));

        assertTrue(
                refused.getMessage()
                        .contains(
                                "key '" + recordKey()
                                        + "' holds a value that is not a Leasehold quorum record (a hash, not a hash whose 'floor' is a decimal integer"),
                () -> "names the key and the rule: " + refused);
        assertEquals(Optional.of(granted), get(lockKey("orders")), "nothing written");
    }

    @Test
    void shouldCommitNothingOnANodeWithoutARecord() {
        String granted = grant("orders", "a1");
        fixture.deleteKey(recordKey()); // FLUSHALL, or a restart without persistence

        assertEquals(List.of(-2L), commit("orders", granted, tokenOf(granted) + AHEAD));

        assertEquals(Optional.of(granted), get(lockKey("orders")), "nothing written");
        assertEquals(Optional.empty(), floor(), "no record made");
    }

    @Test
    void shouldCommitNothingOnANodeWhoseRecordIsAnotherServerProcesss() {
        String granted = grant("orders", "a1");
        writeHashField(recordKey(), "run", "0123456789abcdef0123456789abcdef01234567"); // a restart with persistence

        assertEquals(List.of(-2L), commit("orders", granted, tokenOf(granted) + AHEAD));

        assertEquals(Optional.of(granted), get(lockKey("orders")), "nothing written");
        assertEquals(Optional.of("0"), floor());
    }

    @Test
    void shouldCommitNothingOnANodeThatSitsOutOrAwaitsItsSeed() {
        String granted = grant("orders", "a1");
        fixture.deleteKey(recordKey());
        enlist("reset", "600000");

        assertEquals(List.of(-2L), commit("orders", granted, tokenOf(granted) + AHEAD), "sitting out");
        fixture.deleteKey(recordKey());
        enlist("reset", "0");
        assertEquals(List.of(-2L), commit("orders", granted, tokenOf(granted) + AHEAD), "awaiting its seed");
        enlist("seed", "5");
        assertEquals(1L, commit("orders", granted, tokenOf(granted) + AHEAD).get(0), "taking part once seeded");
    }

    @Test
    void shouldCommitNothingForAClientWhoseLargestLeaseIsNotTheRecordsAndTellTheRecords() {
        String granted = grant("orders", "a1");
        String quorumToken = Long.toString(tokenOf(granted) + AHEAD);

        List<?> longer = (List<?>) await(commitAsync("orders", granted, quorumToken, "3600000", "600000"));
        List<?> shorter = (List<?>) await(commitAsync("orders", granted, quorumToken, "3600000", "1000"));

        assertEquals(List.of(-3L, LARGEST_LEASE), longer, "a longer lease could outlast a reset's delay");
        assertEquals(List.of(-3L, LARGEST_LEASE), shorter, "the clients of one quorum agree on it");
        assertEquals(Optional.of(granted), get(lockKey("orders")), "nothing written");
        for (String bad : List.of("0", "", "5x")) {
            Throwable refused = failure(commitAsync("orders", granted, quorumToken, "3600000", bad));
            assertTrue(
                    refused.getMessage()
                            .contains("largest lease must be a positive integer of ms, but was '" + bad + "'"),
                    () -> "names the rule and the value: " + refused);
        }
    }
}
