package io.leasehold.lock.history.fencing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.history.AccessOp;
import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.HistoryEvent;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.ResourceState;
import io.leasehold.lock.history.ResourceUpdate;
import io.leasehold.lock.testkit.redis.RedisErrorReply;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fenced resource against a real redis-server: the three rules of the README, its numbering and its log. */
class FencedResourceTest {

    private static StandaloneRedis redis;
    private FencedResource stock;

    @BeforeAll
    static void startRedis() {
        redis = RedisFixtures.startStandalone();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void connect() {
        redis.server().command("FLUSHALL");
        stock = FencedResource.on(redis.endpoint(), "stock");
    }

    @AfterEach
    void close() {
        stock.close();
    }

    @Test
    void shouldStartAtZeroAndAcceptReadModifyWritesWithGrowingTokens() {
        FencedAccess read = stock.read(10);
        assertEquals(new FencedAccess("stock", AccessOp.READ, 10, true, 1, 10, 0L, null), read);

        FencedAccess write = stock.write(10, read.value() + 1);
        assertEquals(new FencedAccess("stock", AccessOp.WRITE, 10, true, 2, 10, 1L, 0L), write);

        assertEquals(1L, stock.read(11).value());
        assertTrue(stock.write(11, 2).accepted());
        assertEquals(2L, stock.read(11).value(), "the same holder reads its own write with the same token");
    }

    @Test
    void shouldRejectAReadAndAWriteWithALowerTokenAndChangeNothingButTheNumbering() {
        stock.write(20, 5);

        FencedAccess staleRead = stock.read(19);
        FencedAccess staleWrite = stock.write(19, 99);

        assertEquals(new FencedAccess("stock", AccessOp.READ, 19, false, 2, 20, null, null), staleRead);
        assertEquals(new FencedAccess("stock", AccessOp.WRITE, 19, false, 3, 20, null, null), staleWrite);
        ResourceSnapshot state = stock.snapshot();
        assertEquals(5, state.value());
        assertEquals(20L, state.highest());
        assertEquals(3, state.seq());
        assertEquals(1, state.updates().size(), "a rejected write is not logged");
    }

    @Test
    void shouldRejectAStaleHoldersLateWriteOnceTheNextHolderHasOnlyRead() {
        FencedAccess staleHolderRead = stock.read(1);
        FencedAccess nextHolderRead = stock.read(2);

        FencedAccess lateWrite = stock.write(1, staleHolderRead.value() + 1);

        assertTrue(nextHolderRead.accepted());
        assertFalse(lateWrite.accepted(), "reads raise the highest token too (rule 2 of the README)");
        assertTrue(stock.write(2, nextHolderRead.value() + 1).accepted());
        assertEquals(1, stock.snapshot().value());
    }

    @Test
    void shouldCompareTokensExactlyBeyondWhatADoubleHolds() {
        long big = (1L << 53) + 1;
        assertTrue(stock.read(big).accepted());

        FencedAccess justBelow = stock.read(big - 1);

        assertFalse(justBelow.accepted(), "2^53 + 1 and 2^53 are one double in Lua: compared as numbers they tie");
        assertTrue(stock.read(Long.MAX_VALUE).accepted());
        assertEquals(Long.MAX_VALUE, stock.snapshot().highest());
    }

    @Test
    void shouldSnapshotTheCounterAndTheLogOfAcceptedWritesAsHistoryRecords() {
        stock.write(1, 1);
        stock.write(0, 7);
        stock.write(3, 2);
        stock.read(3);

        ResourceSnapshot snapshot = stock.snapshot();

        assertEquals(2, snapshot.value());
        assertEquals(4, snapshot.seq());
        assertEquals(2, snapshot.updates().size());
        ResourceSnapshot.Update first = snapshot.updates().get(0);
        ResourceSnapshot.Update second = snapshot.updates().get(1);
        assertEquals(List.of(1L, 1L, 0L, 1L), List.of(first.seq(), first.token(), first.previous(), first.value()));
        assertEquals(List.of(3L, 3L, 1L, 2L), List.of(second.seq(), second.token(), second.previous(), second.value()));
        assertTrue(first.time() <= second.time() && second.time() <= snapshot.time(), "the server's clock, in order");
        long nowMicros = System.currentTimeMillis() * 1000;
        assertTrue(
                Math.abs(snapshot.time() - nowMicros) < 60_000_000L,
                "microseconds since the epoch: " + snapshot.time());

        List<HistoryEvent> records = snapshot.toHistory("runner");
        assertEquals(new ResourceState("runner", "stock", 2, 3L, 4, snapshot.time()), records.get(0));
        assertEquals(new ResourceUpdate("runner", "stock", 3, 3, 1, 2, second.time()), records.get(2));
    }

    @Test
    void shouldReportAnUntouchedResourceAsZeroWithNoHighestToken() {
        ResourceSnapshot snapshot = stock.snapshot();
        assertEquals(0, snapshot.value());
        assertNull(snapshot.highest());
        assertEquals(0, snapshot.seq());
        assertEquals(List.of(), snapshot.updates());
    }

    @Test
    void shouldKeepResourcesApartAndResetOne() {
        try (FencedResource other = FencedResource.on(redis.endpoint(), "other")) {
            stock.write(5, 1);
            assertTrue(other.read(1).accepted(), "another resource has its own highest token");

            stock.reset();

            assertTrue(stock.read(1).accepted());
            assertEquals(0, stock.snapshot().value());
            assertEquals(1L, other.snapshot().highest());
        }
    }

    @Test
    void shouldRunItsScriptsAgainAfterTheServerScriptCacheWasFlushed() {
        stock.write(1, 1);
        redis.server().command("SCRIPT", "FLUSH");

        assertTrue(stock.write(2, 2).accepted());
        assertEquals(2, stock.snapshot().value());
    }

    @Test
    void shouldReportALostConnectionAsAnUnknownOutcomeAndReconnectForTheNextAccess() {
        stock.read(1);
        redis.server().command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");

        FencedResourceException unknown = assertThrows(FencedResourceException.class, () -> stock.write(1, 1));
        assertTrue(unknown.getMessage().contains("may or may not have taken effect"), unknown.getMessage());

        assertTrue(stock.read(1).accepted(), "the next access connects again");
    }

    @Test
    void shouldTurnAnAccessIntoItsHistoryRecord() {
        FencedAccess write = stock.write(4, 9);
        ResourceAccess record = write.toHistory("w1", "L", 100, 200);
        assertEquals(
                new ResourceAccess(
                        "w1", "L", "stock", AccessOp.WRITE, 4, AccessOutcome.ACCEPTED, 9L, 1L, 100, 200, null),
                record);
    }

    @Test
    void shouldRejectBadArgumentsNamingTheParameterTheRuleAndTheValue() {
        IllegalArgumentException token = assertThrows(IllegalArgumentException.class, () -> stock.read(-1));
        assertEquals("token must be >= 0, but was -1 (resource 'stock')", token.getMessage());
        IllegalArgumentException timeout = assertThrows(
                IllegalArgumentException.class, () -> FencedResource.on(redis.endpoint(), "x", Duration.ZERO));
        assertEquals("timeout must be greater than 0, but was PT0S (resource 'x')", timeout.getMessage());
        IllegalArgumentException name =
                assertThrows(IllegalArgumentException.class, () -> FencedResource.on(redis.endpoint(), " "));
        assertEquals("name must not be blank, but was ' '", name.getMessage());
    }

    @Test
    void shouldLetTheScriptRefuseMalformedTokensSentByOtherClients() {
        RedisErrorReply error = assertThrows(
                RedisErrorReply.class,
                () -> redis.server()
                        .command(
                                "EVAL",
                                scriptText(),
                                "2",
                                "leasehold-resource:{x}",
                                "leasehold-resource:{x}:log",
                                "read",
                                "007"));
        assertTrue(
                error.getMessage().contains("token must be a decimal integer >= 0 without leading zeros, but was 007"),
                error.getMessage());
    }

    private static String scriptText() {
        try (var in = FencedResource.class.getResourceAsStream("fenced-access.lua")) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
