package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.Subscription;
import io.leasehold.lock.testkit.driver.DriverUnderTest.OpenedBackend;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every driver must do on a standalone Redis beyond the conformance suite, written once:
 * scripts survive an emptied script cache by one {@code EVAL}; release notifications over sharded
 * pub/sub, one server subscription per channel, and a killed pub/sub connection resubscribed with
 * the listeners told. Extend it with your {@link DriverUnderTest}; it runs on the JVM's shared
 * standalone server ({@link RedisFixtures#sharedStandalone()}).
 */
public abstract class StandaloneDriverTests {

    /** The driver under test. */
    protected abstract DriverUnderTest driver();

    private StandaloneRedis redis;
    private OpenedBackend opened;
    private LockBackend backend;

    @BeforeEach
    void openBackend() {
        redis = RedisFixtures.sharedStandalone();
        opened = driver().open(redis);
        backend = opened.backend();
    }

    @AfterEach
    void closeBackend() {
        backend.close();
    }

    @Test
    void shouldFallBackToEvalOnceAfterScriptFlushAndCacheTheScriptAgain() throws Exception {
        LuaScript script = LuaScript.of("test", "return 7 -- " + UUID.randomUUID());
        assertEquals(7L, eval(script), "first use: not cached yet");
        assertEquals(1, opened.scriptFallbacks().getAsLong());
        assertEquals(7L, eval(script));
        assertEquals(1, opened.scriptFallbacks().getAsLong(), "served by EVALSHA once cached");

        redis.scriptFlush();

        assertEquals(7L, eval(script));
        assertEquals(2, opened.scriptFallbacks().getAsLong());
        assertEquals(List.of(1L), redis.server().command("SCRIPT", "EXISTS", script.sha1()));
        assertEquals(7L, eval(script));
        assertEquals(2, opened.scriptFallbacks().getAsLong());
    }

    @Test
    void shouldAcquireAndReleaseAfterScriptFlush() {
        try (LockClient locks = LockClient.create(backend)) {
            String name = "script-cache:" + UUID.randomUUID();
            Lease first = locks.lock(name).acquire(Duration.ofSeconds(5));
            assertTrue(first.release());

            redis.scriptFlush();

            Lease second = locks.lock(name).acquire(Duration.ofSeconds(5));
            assertTrue(second.fencingToken() > first.fencingToken(), "tokens rise across a flush");
            redis.scriptFlush();
            assertTrue(second.release(), "release after another flush");
            assertTrue(!locks.lock(name).isLocked());
        }
    }

    @Test
    void shouldUseShardedPubSubOnRedis7() throws Exception {
        assertEquals(Boolean.TRUE, backend.shardedPubSub().get(10, TimeUnit.SECONDS));
    }

    @Test
    void shouldDeliverAMessagePublishedOnceTheSubscriptionIsActive() throws Exception {
        String channel = channel();
        MessageRecorder recorder = new MessageRecorder();
        backend.subscribe(channel, recorder).get(10, TimeUnit.SECONDS);

        redis.server().command("SPUBLISH", channel, "released");

        assertEquals("released", recorder.messages.poll(10, TimeUnit.SECONDS));
    }

    @Test
    void shouldShareOneServerSubscriptionAmongTheListenersOfAChannel() throws Exception {
        String channel = channel();
        MessageRecorder first = new MessageRecorder();
        MessageRecorder second = new MessageRecorder();
        backend.subscribe(channel, first).get(10, TimeUnit.SECONDS);
        backend.subscribe(channel, second).get(10, TimeUnit.SECONDS);

        assertEquals(1, subscribers(channel));
        redis.server().command("SPUBLISH", channel, "released");
        assertEquals("released", first.messages.poll(10, TimeUnit.SECONDS));
        assertEquals("released", second.messages.poll(10, TimeUnit.SECONDS));
    }

    @Test
    void shouldStopDeliveringToAListenerThatUnsubscribedAndDropTheChannelWithTheLastOne() throws Exception {
        String channel = channel();
        MessageRecorder leaving = new MessageRecorder();
        MessageRecorder staying = new MessageRecorder();
        Subscription leavingSubscription = backend.subscribe(channel, leaving).get(10, TimeUnit.SECONDS);
        Subscription stayingSubscription = backend.subscribe(channel, staying).get(10, TimeUnit.SECONDS);

        leavingSubscription.unsubscribe().get(10, TimeUnit.SECONDS);
        leavingSubscription.unsubscribe().get(10, TimeUnit.SECONDS); // idempotent
        redis.server().command("SPUBLISH", channel, "released");

        assertEquals("released", staying.messages.poll(10, TimeUnit.SECONDS));
        assertTrue(leaving.messages.isEmpty(), "listeners are called in order; the one that left got nothing");
        assertEquals(1, subscribers(channel));

        stayingSubscription.unsubscribe().get(10, TimeUnit.SECONDS);
        Eventually.until("the channel is dropped with its last listener", () -> subscribers(channel) == 0);
    }

    @Test
    void shouldKeepOtherChannelsWhenOneIsDroppedAndSubscribeNewOnesAfterwards() throws Exception {
        String kept = channel();
        String dropped = channel();
        MessageRecorder keeping = new MessageRecorder();
        backend.subscribe(kept, keeping).get(10, TimeUnit.SECONDS);
        Subscription leaving = backend.subscribe(dropped, new MessageRecorder()).get(10, TimeUnit.SECONDS);

        leaving.unsubscribe().get(10, TimeUnit.SECONDS);
        String later = channel();
        MessageRecorder joining = new MessageRecorder();
        backend.subscribe(later, joining).get(10, TimeUnit.SECONDS);

        assertEquals(0, subscribers(dropped));
        redis.server().command("SPUBLISH", kept, "still here");
        redis.server().command("SPUBLISH", later, "welcome");
        assertEquals("still here", keeping.messages.poll(10, TimeUnit.SECONDS));
        assertEquals("welcome", joining.messages.poll(10, TimeUnit.SECONDS));
    }

    @Test
    void shouldResubscribeAndTellListenersAfterThePubSubConnectionIsKilled() throws Exception {
        String channel = channel();
        MessageRecorder recorder = new MessageRecorder();
        backend.subscribe(channel, recorder).get(10, TimeUnit.SECONDS);

        redis.server().command("CLIENT", "KILL", "TYPE", "pubsub");

        assertEquals(channel, recorder.resubscribed.poll(20, TimeUnit.SECONDS));
        assertEquals(1, subscribers(channel));
        redis.server().command("SPUBLISH", channel, "after reconnect");
        assertEquals("after reconnect", recorder.messages.poll(10, TimeUnit.SECONDS));
    }

    @Test
    void shouldWakeAWaiterByTheReleaseWhenItsPubSubConnectionWasKilledWhileWaiting() throws Exception {
        String name = "pubsub-kill:" + UUID.randomUUID();
        String channel = LockKeys.releaseChannel(LockClient.Builder.DEFAULT_KEY_PREFIX, name);
        LockOptions longLease = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(60))
                .autoRenew(false)
                .build();
        try (LockClient holder = LockClient.create(driver().open(redis).backend());
                LockClient waiter = LockClient.create(backend)) {
            Lease held = holder.lock(name, longLease).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = waiter.lock(name).acquireAsync(Duration.ofSeconds(50));
            Eventually.until("the waiter is subscribed", () -> subscribers(channel) == 1);

            redis.server().command("CLIENT", "KILL", "TYPE", "pubsub");
            Eventually.until("the waiter is subscribed again", () -> subscribers(channel) == 1);
            long releasedAt = System.nanoTime();
            assertTrue(held.release());

            // Woken by the release message: far sooner than the 60 s lease the TTL fallback would wait for.
            Lease taken = waiting.get(20, TimeUnit.SECONDS);
            assertTrue(Duration.ofNanos(System.nanoTime() - releasedAt).compareTo(Duration.ofSeconds(20)) < 0);
            assertTrue(taken.fencingToken() > held.fencingToken());
            taken.release();
        }
    }

    private Object eval(LuaScript script) throws Exception {
        return backend.eval(script, List.of("script-cache:key"), List.of()).get(10, TimeUnit.SECONDS);
    }

    private static String channel() {
        return "pubsub-test:{" + UUID.randomUUID() + "}:released";
    }

    private long subscribers(String channel) {
        List<?> reply = (List<?>) redis.server().command("PUBSUB", "SHARDNUMSUB", channel);
        return (Long) reply.get(1);
    }
}
