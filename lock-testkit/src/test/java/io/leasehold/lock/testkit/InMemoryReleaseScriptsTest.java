package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.await;
import static io.leasehold.lock.testkit.ScriptCaller.channel;
import static io.leasehold.lock.testkit.ScriptCaller.failure;
import static io.leasehold.lock.testkit.ScriptCaller.lockKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.inmemory.InMemoryScriptException;
import io.leasehold.lock.spi.Subscription;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The release and force-release scripts: owner-checked delete, and the "released" message to the
 * lock's channel. That a call published nothing is shown by a later publish arriving first, since
 * messages are delivered in order.
 */
class InMemoryReleaseScriptsTest extends InMemoryScriptTestBase {

    private final RecordingListener listener = new RecordingListener();

    @Test
    void shouldReleaseOwnLockAndPublishReleased() {
        subscribe("orders");
        scripts.acquire("orders", "owner-a", 30_000);

        assertEquals(1L, scripts.release("orders", "owner-a"));

        assertFalse(redis.exists(lockKey("orders")));
        assertEquals(channel("orders") + " released", listener.next());
    }

    @Test
    void shouldNotReleaseAnotherOwnersLock() {
        subscribe("orders");
        scripts.acquire("orders", "owner-a", 30_000);

        assertEquals(-1L, scripts.release("orders", "owner-b"), "held by someone else");

        assertTrue(redis.exists(lockKey("orders")), "the holder keeps the lock");
        assertNothingPublishedBefore("orders", "owner-a");
    }

    @Test
    void shouldReturnZeroReleasingAbsentLockAndPublishNothing() {
        subscribe("orders");

        assertEquals(0L, scripts.release("orders", "owner-a"));

        assertNothingPublishedBefore("orders", "owner-a");
    }

    @Test
    void shouldForceReleaseWhoeverHoldsAndPublish() {
        subscribe("orders");
        scripts.acquire("orders", "owner-a", 30_000);

        assertEquals(1L, scripts.forceRelease("orders"));

        assertFalse(redis.exists(lockKey("orders")));
        assertEquals(channel("orders") + " released", listener.next());
    }

    @Test
    void shouldReturnZeroForceReleasingAbsentLockAndPublishNothing() {
        subscribe("orders");

        assertEquals(0L, scripts.forceRelease("orders"));

        assertNothingPublishedBefore("orders", "owner-a");
    }

    @Test
    void shouldNotReachShardedSubscribersWithPlainPublish() {
        subscribe("orders");
        scripts.acquire("orders", "owner-a", 30_000);

        assertEquals(1L, scripts.release("orders", "owner-a", "PUBLISH"), "PUBLISH runs, as in Redis");

        assertFalse(redis.exists(lockKey("orders")));
        assertNothingPublishedBefore("orders", "owner-b");
    }

    @Test
    void shouldFailReleaseWithAnUnknownPublishCommandAfterDeletingLikeRedis() {
        scripts.acquire("orders", "owner-a", 30_000);

        Throwable error = failure(redis.eval(
                ScriptCaller.RELEASE,
                ScriptCaller.queueKeys("orders", true),
                List.of("owner-a", Long.toString(ScriptCaller.COUNTER_TTL_MS), "1500", "NOTIFY", "30000")));

        assertInstanceOf(InMemoryScriptException.class, error);
        assertTrue(error.getMessage().contains("'NOTIFY'"), error.getMessage());
        assertFalse(redis.exists(lockKey("orders")), "a Lua script keeps the writes made before its error");
    }

    private Subscription subscribe(String name) {
        return await(redis.subscribe(channel(name), listener));
    }

    /** Releases {@code name} for real and checks that its message is the first one received. */
    private void assertNothingPublishedBefore(String name, String owner) {
        scripts.acquire(name, owner, 30_000);
        assertEquals(1L, scripts.release(name, owner));
        assertEquals(channel(name) + " released", listener.next());
        assertTrue(listener.messages.isEmpty(), () -> "unexpected messages: " + listener.messages);
    }
}
