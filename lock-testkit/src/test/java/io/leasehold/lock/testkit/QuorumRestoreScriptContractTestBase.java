package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.await;
import static io.leasehold.lock.testkit.ScriptCaller.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What quorum-restore.lua (putting back, on one node of a quorum, the leases a majority confirms and
 * this node lost) must do, on the in-memory emulation and on a real redis-server alike: put a lease
 * back with its value and lease only where the name is free (also below the node's floor, which other
 * locks of the prefix raise), raise the floor to it, write nothing on a node that takes no part, and refuse what is not a lease's value.
 * Each test has its own key prefix (the floor is node-wide) and starts with the node taking part.
 */
abstract class QuorumRestoreScriptContractTestBase {

    private static final LuaScript RESTORE = LuaScript.bundled(ScriptNames.QUORUM_RESTORE);
    private static final LuaScript ENLIST = LuaScript.bundled(ScriptNames.QUORUM_ENLIST);
    private static final long LEASE_MS = 60_000;
    private static final String LARGEST_LEASE = "300000";

    protected LockBackendFixture fixture;
    private LockBackend backend;
    private String prefix;

    protected abstract LockBackendFixture createFixture();

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
        prefix = "restore-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":";
        String run =
                (String) ((List<?>) await(backend.eval(ENLIST, List.of(recordKey()), List.of("probe", "")))).get(4);
        await(backend.eval(ENLIST, List.of(recordKey()), List.of("join", "100", LARGEST_LEASE, run)));
    }

    @AfterEach
    void closeFixture() {
        backend.close();
        fixture.close();
    }

    private String lockKey(String name) {
        return LockKeys.lockKey(prefix, name);
    }

    private String recordKey() {
        return LockKeys.quorumRecordKey(prefix);
    }

    private Optional<String> floor() {
        return hashField(recordKey(), "floor");
    }

    /** quorum-restore.lua of {@code leases}: name, value, lease ms, name, value, lease ms, ... */
    private CompletableFuture<Object> restoreAsync(String... leases) {
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        keys.add(recordKey());
        for (int i = 0; i < leases.length; i += 3) {
            keys.add(lockKey(leases[i]));
            args.add(leases[i + 1]);
            args.add(leases[i + 2]);
        }
        return backend.eval(RESTORE, keys, args);
    }

    private List<?> restore(String... leases) {
        return (List<?>) await(restoreAsync(leases));
    }

    private static final String LEASE = Long.toString(LEASE_MS);

    @Test
    void shouldPutBackAMissingLeaseWithItsValueAndLeaseAndRaiseTheFloor() {
        List<?> reply = restore("orders", "a1:500:3", LEASE);

        assertEquals(List.of(List.of(1L)), reply);
        assertEquals(Optional.of("a1:500:3"), get(lockKey("orders")), "the lease's value, sequence number included");
        long ttl = fixture.pttl(lockKey("orders"));
        assertTrue(ttl > LEASE_MS - 5_000 && ttl <= LEASE_MS, () -> "the lease, from now: " + ttl);
        assertEquals(Optional.of("500"), floor(), "the floor is at least the token now held here");
    }

    @Test
    void shouldLeaveAnyKeyThatExistsAlone() {
        fixture.writeKey(lockKey("other"), "b1:900");
        fixture.writeKey(lockKey("same"), "a1:400:2");
        writeHashField(lockKey("foreign"), "x", "y");

        List<?> reply = restore("other", "a1:500:3", LEASE, "same", "a1:500:3", LEASE, "foreign", "a1:500:3", LEASE);

        assertEquals(List.of(List.of(0L, 0L, 0L)), reply, "a lock is put back only where the name is free");
        assertEquals(Optional.of("b1:900"), get(lockKey("other")), "another owner's lock untouched");
        assertEquals(Optional.of("a1:400:2"), get(lockKey("same")), "another lease of this owner untouched");
        assertEquals(Optional.of("y"), hashField(lockKey("foreign"), "x"), "a foreign key untouched");
        assertEquals(Optional.of("100"), floor(), "the floor unchanged");
    }

    @Test
    void shouldPutBackALeaseBelowTheFloorThatOtherLocksOfThePrefixRaisedAndKeepTheFloor() {
        writeHashField(recordKey(), "floor", "700"); // other locks of the prefix were committed here since

        List<?> reply = restore("orders", "a1:699:3", LEASE);

        assertEquals(List.of(List.of(1L)), reply, "the floor is the prefix's: it says nothing of this lock");
        assertEquals(Optional.of("a1:699:3"), get(lockKey("orders")));
        assertEquals(Optional.of("700"), floor(), "the floor never goes down");
    }

    @Test
    void shouldRaiseTheFloorToTheLargestTokenPutBack() {
        List<?> reply = restore("a", "a1:300:1", LEASE, "b", "b1:800:1", LEASE, "c", "c1:500:1", LEASE);

        assertEquals(List.of(List.of(1L, 1L, 1L)), reply);
        assertEquals(Optional.of("800"), floor());
        assertEquals(Optional.of("c1:500:1"), get(lockKey("c")));
    }

    @Test
    void shouldPutBackNothingOnANodeThatTakesNoPart() {
        writeHashField(recordKey(), "run", "0123456789abcdef0123456789abcdef01234567"); // a restart with persistence
        assertEquals(List.of(-2L), restore("orders", "a1:500:3", LEASE), "a record of another server process");

        fixture.deleteKey(recordKey()); // a restart without persistence, or FLUSHALL
        assertEquals(List.of(-2L), restore("orders", "a1:500:3", LEASE), "no record");

        await(backend.eval(ENLIST, List.of(recordKey()), List.of("reset", "600000", LARGEST_LEASE, "0")));
        assertEquals(List.of(-2L), restore("orders", "a1:500:3", LEASE), "sitting out");

        assertEquals(Optional.empty(), get(lockKey("orders")), "nothing written");
    }

    @Test
    void shouldRefuseWhatIsNoLeaseValueOrLeaseNamingItAndWriteNothing() {
        for (String bad : List.of("a1:500", "a1:5x:3", "a1::3", ":500:3", "a1:9007199254740991:1")) {
            Throwable refused = failure(restoreAsync("first", "a1:400:1", LEASE, "orders", bad, LEASE));
            assertTrue(
                    refused.getMessage()
                            .contains("value of lease 2 must be '<owner>:<token>:<seq>' with a decimal token below"
                                    + " 2^53 - 1, but was '" + bad + "'"),
                    () -> "names the rule and the value: " + refused);
        }
        for (String bad : List.of("0", "", "-5", "5x")) {
            Throwable refused = failure(restoreAsync("orders", "a1:400:1", bad));
            assertTrue(
                    refused.getMessage()
                            .contains("lease of lease 1 must be a positive integer of ms, but was '" + bad + "'"),
                    () -> "names the rule and the value: " + refused);
        }
        assertEquals(Optional.empty(), get(lockKey("first")), "nothing written, not even the lease before the bad one");
        assertEquals(Optional.of("100"), floor());
    }

    @Test
    void shouldRefuseARecordThatIsNoHashNamingTheKeyAndWriteNothing() {
        fixture.writeKey(recordKey(), "not a record");

        Throwable refused = failure(restoreAsync("orders", "a1:500:3", LEASE));

        assertTrue(
                refused.getMessage()
                        .contains("key '" + recordKey() + "' holds a value that is not a Leasehold quorum record"),
                () -> "names the key: " + refused);
        assertEquals(Optional.empty(), get(lockKey("orders")), "nothing written");
    }
}
