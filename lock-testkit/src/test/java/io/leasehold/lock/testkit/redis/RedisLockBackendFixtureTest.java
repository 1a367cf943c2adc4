package io.leasehold.lock.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.FaultInjectingBackend;
import io.leasehold.lock.testkit.LockBackendFixture.Fault;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RedisLockBackendFixtureTest {

    private static final LuaScript INCR = LuaScript.of("incr", "return redis.call('INCR', KEYS[1])");
    private static final LuaScript SET =
            LuaScript.of("set", "return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])");

    private StandaloneRedis redis;
    private RedisLockBackendFixture<StandaloneRedis> fixture;

    @BeforeEach
    void start() {
        redis = RedisFixtures.startStandalone();
        fixture = RedisLockBackendFixture.owning("resp-standalone", redis, RespScriptBackend::new);
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    private static Object await(CompletableFuture<Object> reply) throws Exception {
        return reply.get(20, TimeUnit.SECONDS);
    }

    private Object admin(String... command) {
        return redis.server().command(command);
    }

    @Test
    void shouldWrapEveryBackendInAFaultInjectingBackend() throws Exception {
        LockBackend backend = fixture.newBackend();

        FaultInjectingBackend wrapper = assertInstanceOf(FaultInjectingBackend.class, backend);
        assertInstanceOf(RespScriptBackend.class, wrapper.delegate());
        assertEquals(1L, await(backend.eval(INCR, List.of("counter"), List.of())));
        assertEquals("resp-standalone", fixture.name());
        assertEquals(Map.of(), fixture.unsupportedFaults());
    }

    @Test
    void shouldLoseExactlyOneReplyAcrossAllBackendsWhileTheScriptStillRuns() throws Exception {
        LockBackend first = fixture.newBackend();
        LockBackend second = fixture.newBackend();
        fixture.loseNextReply();

        CompletableFuture<Object> lost = first.eval(INCR, List.of("counter"), List.of());
        Await.until(
                "the lost INCR to run", Duration.ofSeconds(20), () -> "1".equals(admin("GET", "counter")), () -> "");

        assertEquals(2L, await(second.eval(INCR, List.of("counter"), List.of())));
        assertEquals(3L, await(first.eval(INCR, List.of("counter"), List.of())));
        assertFalse(lost.isDone());
    }

    @Test
    void shouldDelayEveryBackendUntilResetFaults() throws Exception {
        LockBackend first = fixture.newBackend();
        LockBackend second = fixture.newBackend();
        fixture.setLatency(Duration.ofMillis(500));

        long start = System.nanoTime();
        CompletableFuture<Object> a = first.eval(INCR, List.of("counter"), List.of());
        CompletableFuture<Object> b = second.eval(INCR, List.of("counter"), List.of());
        await(a);
        await(b);
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(500));

        fixture.resetFaults();
        assertEquals(3L, await(first.eval(INCR, List.of("counter"), List.of())));
    }

    @Test
    void shouldDeleteAndExpireKeysBehindTheBackendsBack() throws Exception {
        LockBackend backend = fixture.newBackend();
        await(backend.eval(SET, List.of("lock:a"), List.of("owner", "60000")));
        await(backend.eval(SET, List.of("lock:b"), List.of("owner", "60000")));

        fixture.deleteKey("lock:a");
        fixture.expireNow("lock:b");
        fixture.expireNow("lock:missing");

        assertEquals(0L, admin("EXISTS", "lock:a", "lock:b"));
    }

    @Test
    void shouldWriteAKeyWithoutATtlOnTheMaster() throws Exception {
        await(fixture.newBackend().eval(SET, List.of("lock:{a}:fence"), List.of("1700000000000009", "60000")));

        fixture.writeKey("lock:{a}:fence", "1700000000000001");

        assertEquals("1700000000000001", admin("GET", "lock:{a}:fence"));
        assertEquals(-1L, admin("PTTL", "lock:{a}:fence"));
    }

    @Test
    void shouldReplaceAKeyWithAHash() throws Exception {
        await(fixture.newBackend().eval(SET, List.of("lock:{a}"), List.of("owner:1", "60000")));

        fixture.writeForeignKey("lock:{a}");
        fixture.writeForeignKey("lock:{absent}");

        assertEquals("hash", admin("TYPE", "lock:{a}"));
        assertEquals(-1L, admin("PTTL", "lock:{a}"), "the hash replaced the key, TTL and all");
        assertEquals(1L, admin("HLEN", "lock:{a}"));
        assertEquals("hash", admin("TYPE", "lock:{absent}"));
    }

    @Test
    void shouldConfirmSubscribesOfEveryBackendOnlyAfterTheSubscribeLatencyUntilResetFaults() throws Exception {
        LockBackend backend = fixture.newBackend();
        Duration latency = Duration.ofMillis(300);
        fixture.setSubscribeLatency(latency);

        long start = System.nanoTime();
        CompletableFuture<?> slow = backend.subscribe("channel", (channel, message) -> {});
        ExecutionException refused = assertThrows(ExecutionException.class, () -> slow.get(20, TimeUnit.SECONDS));
        long answeredAfter = System.nanoTime() - start;

        // RespScriptBackend refuses every subscribe at once; the fixture's backends relay it late.
        assertInstanceOf(UnsupportedOperationException.class, refused.getCause());
        assertTrue(answeredAfter >= latency.toNanos(), "answered no earlier than the subscribe latency");
        fixture.resetFaults();
        assertTrue(
                fixture.newBackend()
                        .subscribe("channel", (channel, message) -> {})
                        .isDone(),
                "at once after reset");
    }

    @Test
    void shouldFlushAllData() throws Exception {
        await(fixture.newBackend().eval(INCR, List.of("counter"), List.of()));

        fixture.flushAll();

        assertEquals(0L, admin("DBSIZE"));
    }

    @Test
    void shouldHoldCommandsWhileUnavailableAndServeThemWhenAvailableAgain() throws Exception {
        LockBackend backend = fixture.newBackend();

        fixture.makeUnavailable();
        CompletableFuture<Object> held = backend.eval(INCR, List.of("counter"), List.of());
        assertThrows(TimeoutException.class, () -> held.get(500, TimeUnit.MILLISECONDS));

        fixture.makeAvailable();
        assertEquals(1L, await(held));
        assertEquals(2L, await(backend.eval(INCR, List.of("counter"), List.of())));
    }

    @Test
    void shouldResumeAPausedTopologyOnResetFaults() {
        fixture.makeUnavailable();

        fixture.resetFaults();

        assertEquals("PONG", admin("PING"));
    }

    @Test
    void shouldCloseItsBackendsAndStopAnOwnedTopology() {
        FaultInjectingBackend backend = (FaultInjectingBackend) fixture.newBackend();

        fixture.close();

        assertTrue(((RespScriptBackend) backend.delegate()).closed.get());
        assertFalse(redis.server().isRunning());
        assertThrows(IllegalStateException.class, fixture::newBackend);
    }

    @Test
    void shouldFlushButNotStopASharedTopologyOnClose() throws Exception {
        try (StandaloneRedis shared = RedisFixtures.startStandalone()) {
            shared.server().command("SET", "left-over", "from another test class");
            RedisLockBackendFixture<StandaloneRedis> sharing =
                    RedisLockBackendFixture.sharing("shared", shared, RespScriptBackend::new);
            assertEquals(0L, shared.server().command("DBSIZE"), "a sharing fixture starts from a clean store");
            await(sharing.newBackend().eval(INCR, List.of("counter"), List.of()));
            sharing.makeUnavailable();

            sharing.close();

            assertEquals("PONG", shared.server().command("PING"));
            assertEquals(0L, shared.server().command("DBSIZE"));
        }
    }

    @Test
    void shouldReportUnavailableAsUnsupportedForAnExternalServer() {
        String url = redis.uri();
        StandaloneRedis external =
                RedisFixtures.startStandalone(RedisEnvironment.of(Map.of("REDIS_URL", url), false, () -> false));
        try (RedisLockBackendFixture<StandaloneRedis> overExternal =
                RedisLockBackendFixture.sharing("external", external, RespScriptBackend::new)) {
            String reason = overExternal.unsupportedFaults().get(Fault.UNAVAILABLE);

            assertTrue(reason.startsWith("REDIS_URL names an external server"), reason);
            assertThrows(UnsupportedOperationException.class, overExternal::makeUnavailable);
        }
    }
}
