package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.await;
import static io.leasehold.lock.testkit.ScriptCaller.channel;
import static io.leasehold.lock.testkit.ScriptCaller.failure;
import static io.leasehold.lock.testkit.ScriptCaller.fenceKey;
import static io.leasehold.lock.testkit.ScriptCaller.lockKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.Subscription;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Fault switches: unavailable, latency, slow subscribe confirmations, lost replies, and the data faults. */
class InMemoryFaultSwitchesTest extends InMemoryScriptTestBase {

    @Test
    void shouldFailEveryCallFastWithConnectExceptionWhileUnavailable() {
        redis.makeUnavailable();

        CompletableFuture<Object> acquire = scripts.acquireAsync("orders", "owner-a", 30_000);
        Throwable evalError = failure(acquire);
        Throwable subscribeError = failure(redis.subscribe(channel("orders"), new RecordingListener()));

        assertTrue(acquire.isDone(), "fails fast");
        assertInstanceOf(ConnectException.class, evalError);
        assertTrue(evalError.getMessage().contains("in-memory backend was made unavailable"), evalError.getMessage());
        assertInstanceOf(ConnectException.class, subscribeError);
        assertFalse(redis.exists(lockKey("orders")), "nothing ran");
        assertFalse(redis.isAvailable());
    }

    @Test
    void shouldServeCallsAgainWhenMadeAvailable() {
        redis.makeUnavailable();
        redis.makeAvailable();

        assertEquals(1L, scripts.acquire("orders", "owner-a", 30_000).get(0));
    }

    @Test
    void shouldTellSubscribersTheyWereResubscribedWhenMadeAvailableAgain() {
        RecordingListener listener = new RecordingListener();
        await(redis.subscribe(channel("orders"), listener));

        redis.makeUnavailable();
        redis.makeAvailable();

        assertEquals(channel("orders"), listener.nextResubscribed());
    }

    @Test
    void shouldRunDelayedCallsLaterOnTheLatencyThread() throws InterruptedException {
        ThreadRecordingClock clock = new ThreadRecordingClock();
        try (InMemoryLockBackend slow = InMemoryLockBackend.withClock(clock)) {
            Duration latency = Duration.ofMillis(200);
            slow.setLatency(latency);
            long start = System.nanoTime();

            await(new ScriptCaller(slow).acquireAsync("orders", "owner-a", 30_000));

            assertTrue(System.nanoTime() - start >= latency.toNanos(), "waited out the latency");
            assertEquals("leasehold-inmemory-latency", clock.readers.take().getName(), "the script ran there");
            assertTrue(slow.exists(lockKey("orders")));
        }
    }

    @Test
    void shouldNotRunADelayedCallBeforeItsLatencyAndFailItOnClose() {
        redis.setLatency(Duration.ofHours(1));

        CompletableFuture<Object> acquire = scripts.acquireAsync("orders", "owner-a", 30_000);

        assertFalse(acquire.isDone(), "eval returns at once");
        assertFalse(redis.exists(lockKey("orders")), "the call waits out its latency before it runs");
        redis.close();
        assertInstanceOf(IllegalStateException.class, failure(acquire));
    }

    @Test
    void shouldSubscribeAtOnceButConfirmOnlyAfterTheSubscribeLatency() {
        RecordingListener listener = new RecordingListener();
        redis.setSubscribeLatency(Duration.ofHours(1));

        CompletableFuture<Subscription> subscribed = redis.subscribe(channel("orders"), listener);
        scripts.acquire("orders", "owner-a", 30_000);
        scripts.release("orders", "owner-a");

        assertEquals(channel("orders") + " released", listener.next(), "the subscription was active at once");
        assertEquals(1, redis.subscriberCount(channel("orders")));
        assertFalse(subscribed.isDone(), "but its confirmation waits out the latency");
    }

    @Test
    void shouldConfirmASlowSubscribeOnTheLatencyThread() {
        Duration latency = Duration.ofMillis(300);
        redis.setSubscribeLatency(latency);
        long start = System.nanoTime();

        CompletableFuture<Thread> confirmedOn = redis.subscribe(channel("orders"), new RecordingListener())
                .thenApply(subscription -> Thread.currentThread());
        Thread confirmer = await(confirmedOn);

        assertTrue(System.nanoTime() - start >= latency.toNanos(), "confirmed no earlier than the latency");
        assertEquals("leasehold-inmemory-latency", confirmer.getName());
        assertTrue(confirmer.isDaemon());
    }

    @Test
    void shouldFailAPendingSubscribeConfirmationOnCloseAndEndItsSubscription() {
        redis.setSubscribeLatency(Duration.ofHours(1));
        CompletableFuture<Subscription> subscribed = redis.subscribe(channel("orders"), new RecordingListener());

        redis.close();

        Throwable error = failure(subscribed);
        assertInstanceOf(IllegalStateException.class, error);
        assertTrue(
                error.getMessage()
                        .contains("closed before the delayed confirmation of the subscription to channel '"
                                + channel("orders") + "'"),
                error.getMessage());
        assertEquals(0, redis.subscriberCount(channel("orders")));
    }

    @Test
    void shouldRejectANegativeSubscribeLatencyNamingIt() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> redis.setSubscribeLatency(Duration.ofMillis(-5)));

        assertEquals("subscribeLatency must not be negative, but was PT-0.005S", e.getMessage());
    }

    @Test
    void shouldExecuteTheNextCallButNeverAnswerItWhenItsReplyIsLost() {
        redis.loseNextReply();

        CompletableFuture<Object> lost = scripts.acquireAsync("orders", "owner-a", 30_000);

        assertTrue(redis.get(lockKey("orders")).orElseThrow().startsWith("owner-a:"), "the call ran");
        assertFalse(lost.isDone(), "its reply is lost");
        assertEquals(List.of(), scripts.renew(List.of(), List.of()), "the call after it is answered");
    }

    @Test
    void shouldLoseOneReplyPerRequest() {
        redis.loseNextReply();
        redis.loseNextReply();

        CompletableFuture<Object> first = scripts.acquireAsync("a", "owner-a", 30_000);
        CompletableFuture<Object> second = scripts.acquireAsync("b", "owner-a", 30_000);
        CompletableFuture<Object> third = scripts.acquireAsync("c", "owner-a", 30_000);

        assertFalse(first.isDone());
        assertFalse(second.isDone());
        assertEquals(1L, ((List<?>) await(third)).get(0));
    }

    @Test
    void shouldClearEveryFaultOnReset() {
        redis.makeUnavailable();
        redis.setLatency(Duration.ofHours(1));
        redis.setSubscribeLatency(Duration.ofHours(1));
        redis.loseNextReply();

        redis.resetFaults();
        CompletableFuture<Object> acquire = scripts.acquireAsync("orders", "owner-a", 30_000);
        CompletableFuture<Subscription> subscribed = redis.subscribe(channel("orders"), new RecordingListener());

        assertTrue(acquire.isDone(), "no latency, no lost reply");
        assertTrue(subscribed.isDone(), "no subscribe latency");
        assertEquals(1L, ((List<?>) await(acquire)).get(0));
        assertTrue(redis.isAvailable());
    }

    @Test
    void shouldRejectANegativeLatencyNamingIt() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> redis.setLatency(Duration.ofMillis(-5)));

        assertEquals("latency must not be negative, but was PT-0.005S", e.getMessage());
    }

    @Test
    void shouldExpireAKeyNowKeepingItsCounter() {
        scripts.acquire("orders", "owner-a", 30_000);

        assertTrue(redis.expireNow(lockKey("orders")));

        assertEquals(-2L, redis.pttl(lockKey("orders")));
        assertTrue(redis.exists(fenceKey("orders")));
        assertEquals(0L, scripts.extend("orders", "owner-a", 30_000));
        assertFalse(redis.expireNow(lockKey("orders")), "nothing left to expire");
    }

    @Test
    void shouldDeleteAKeyBehindTheHoldersBack() {
        scripts.acquire("orders", "owner-a", 30_000);

        assertTrue(redis.deleteKey(lockKey("orders")));

        assertEquals(List.of(0L), scripts.renew(List.of("orders"), List.of("owner-a", "30000")));
        assertEquals(1L, scripts.acquire("orders", "owner-b", 30_000).get(0));
    }

    @Test
    void shouldWriteAKeyWithoutATtlReplacingItsValue() {
        scripts.acquire("orders", "owner-a", 30_000);

        redis.writeKey(fenceKey("orders"), "42");

        assertEquals(Optional.of("42"), redis.get(fenceKey("orders")));
        assertEquals(-1L, redis.pttl(fenceKey("orders")), "SET without options drops the idle TTL");
    }

    @Test
    void shouldReplaceAKeyWithAHashThatGetRefusesLikeRedis() {
        scripts.acquire("orders", "owner-a", 30_000);

        redis.writeForeignKey(lockKey("orders"));

        assertTrue(redis.exists(lockKey("orders")));
        assertEquals(-1L, redis.pttl(lockKey("orders")), "DEL + HSET leaves no TTL");
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> redis.get(lockKey("orders")));
        assertTrue(
                refused.getMessage().startsWith("WRONGTYPE Operation against a key holding the wrong kind of value"),
                refused.getMessage());
        assertTrue(refused.getMessage().contains(lockKey("orders")), refused.getMessage());
        assertTrue(redis.deleteKey(lockKey("orders")), "DEL removes a key of any type");
    }

    @Test
    void shouldLoseLocksAndCountersOnFlushAll() {
        scripts.acquire("a", "owner-a", 30_000);
        scripts.acquire("b", "owner-b", 30_000);

        redis.flushAll();

        assertEquals(java.util.Set.of(), redis.keys());
        assertEquals(Optional.empty(), redis.get(fenceKey("a")));
    }
}
