package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.await;
import static io.leasehold.lock.testkit.ScriptCaller.channel;
import static io.leasehold.lock.testkit.ScriptCaller.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Nodes share one store; closing a node drops its subscriptions, closing the root stops everything. */
class InMemoryNodesAndLifecycleTest {

    private final InMemoryLockBackend redis = InMemoryLockBackend.withClock(new ManualClock());

    @AfterEach
    void close() {
        redis.close();
    }

    @Test
    void shouldShareLocksBetweenNodes() {
        InMemoryLockBackend nodeA = redis.newNode();
        InMemoryLockBackend nodeB = redis.newNode();
        String token = (String)
                new ScriptCaller(nodeA).acquire("orders", "owner-a", 30_000).get(1);

        List<?> contended = new ScriptCaller(nodeB).acquire("orders", "owner-b", 30_000);

        assertEquals(List.of(0L, token, 30_000L, 0L), contended);
    }

    @Test
    void shouldDeliverAReleaseOnOneNodeToAnotherNodesSubscriber() {
        InMemoryLockBackend nodeA = redis.newNode();
        InMemoryLockBackend nodeB = redis.newNode();
        RecordingListener listener = new RecordingListener();
        await(nodeB.subscribe(channel("orders"), listener));
        ScriptCaller scriptsA = new ScriptCaller(nodeA);

        scriptsA.acquire("orders", "owner-a", 30_000);
        scriptsA.release("orders", "owner-a");

        assertEquals(channel("orders") + " released", listener.next());
    }

    @Test
    void shouldDropOnlyItsOwnSubscriptionsWhenANodeCloses() {
        InMemoryLockBackend node = redis.newNode();
        await(node.subscribe(channel("orders"), new RecordingListener()));
        await(redis.subscribe(channel("orders"), new RecordingListener()));

        node.close();
        node.close();

        assertEquals(1, redis.subscriberCount(channel("orders")));
        assertInstanceOf(
                IllegalStateException.class, failure(new ScriptCaller(node).acquireAsync("orders", "owner-a", 30_000)));
        assertEquals(
                1L, new ScriptCaller(redis).acquire("orders", "owner-a", 30_000).get(0), "the store lives on");
    }

    @Test
    void shouldApplyFaultsToEveryNode() {
        InMemoryLockBackend node = redis.newNode();

        node.makeUnavailable();

        assertInstanceOf(
                ConnectException.class, failure(new ScriptCaller(redis).acquireAsync("orders", "owner-a", 30_000)));
    }

    @Test
    void shouldCloseEveryNodeWithTheRoot() {
        InMemoryLockBackend node = redis.newNode();
        await(node.subscribe(channel("orders"), new RecordingListener()));

        redis.close();
        redis.close();

        assertEquals(0, redis.subscriberCount(channel("orders")));
        assertInstanceOf(
                IllegalStateException.class, failure(new ScriptCaller(node).acquireAsync("orders", "owner-a", 30_000)));
        assertInstanceOf(IllegalStateException.class, failure(node.subscribe(channel("x"), new RecordingListener())));
        assertThrows(IllegalStateException.class, redis::newNode);
    }

    @Test
    void shouldLeaveNoThreadRunningAfterClose() throws InterruptedException {
        ThreadRecordingClock clock = new ThreadRecordingClock();
        InMemoryLockBackend backend = InMemoryLockBackend.withClock(clock);
        RecordingListener listener = new RecordingListener();
        await(backend.subscribe(channel("orders"), listener));
        backend.setLatency(Duration.ofMillis(1));
        ScriptCaller scripts = new ScriptCaller(backend);
        scripts.acquire("orders", "owner-a", 30_000);
        scripts.release("orders", "owner-a");
        listener.next();
        Thread pubSubThread = listener.threads.take();
        Thread latencyThread = clock.readers.take(); // scripts read the clock on the thread running them

        backend.close();

        assertEquals("leasehold-inmemory-latency", latencyThread.getName());
        assertEquals("leasehold-inmemory-pubsub", pubSubThread.getName());
        assertFalse(latencyThread.isAlive(), "the latency thread still runs after close");
        assertFalse(pubSubThread.isAlive(), "the pub/sub thread still runs after close");
    }

    @Test
    void shouldCloseFromItsOwnListenerWithoutDeadlock() throws Exception {
        CompletableFuture<Void> closed = new CompletableFuture<>();
        await(redis.subscribe(channel("orders"), (channel, message) -> {
            redis.close();
            closed.complete(null);
        }));
        ScriptCaller scripts = new ScriptCaller(redis);

        scripts.acquire("orders", "owner-a", 30_000);
        scripts.release("orders", "owner-a");

        closed.get(ScriptCaller.TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertInstanceOf(IllegalStateException.class, failure(scripts.acquireAsync("orders", "owner-a", 30_000)));
    }
}
