package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.await;
import static io.leasehold.lock.testkit.ScriptCaller.failure;
import static io.leasehold.lock.testkit.ScriptCaller.lockKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.Subscription;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fixture: nodes on one store, every fault supported and applied to all of them. */
class InMemoryFixtureTest {

    private final InMemoryFixture fixture = new InMemoryFixture();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void shouldSupportEveryFault() {
        assertEquals(Map.of(), fixture.unsupportedFaults());
        assertEquals("in-memory", fixture.name());
    }

    @Test
    void shouldGiveBackendsOnOneSharedStore() {
        LockBackend nodeA = fixture.newBackend();
        LockBackend nodeB = fixture.newBackend();

        new ScriptCaller(nodeA).acquire("orders", "owner-a", 30_000);

        assertNotSame(nodeA, nodeB);
        assertEquals(
                0L, new ScriptCaller(nodeB).acquire("orders", "owner-b", 30_000).get(0));
        assertTrue(fixture.backend().exists(lockKey("orders")));
    }

    @Test
    void shouldKeepTheStoreWhenOneBackendCloses() {
        LockBackend nodeA = fixture.newBackend();
        LockBackend nodeB = fixture.newBackend();
        new ScriptCaller(nodeA).acquire("orders", "owner-a", 30_000);

        nodeA.close();

        assertEquals(
                0L, new ScriptCaller(nodeB).acquire("orders", "owner-b", 30_000).get(0));
    }

    @Test
    void shouldApplyDataFaultsToTheSharedStore() {
        ScriptCaller scripts = new ScriptCaller(fixture.newBackend());
        scripts.acquire("a", "owner", 30_000);
        scripts.acquire("b", "owner", 30_000);
        scripts.acquire("c", "owner", 30_000);

        fixture.deleteKey(lockKey("a"));
        fixture.expireNow(lockKey("b"));

        assertEquals(
                List.of(0L, 0L, 1L),
                scripts.renew(List.of("a", "b", "c"), List.of("owner", "30000", "owner", "30000", "owner", "30000")));
        fixture.flushAll();
        assertEquals(java.util.Set.of(), fixture.backend().keys());
    }

    @Test
    void shouldWriteKeysAndForeignKeysInTheSharedStore() {
        ScriptCaller scripts = new ScriptCaller(fixture.newBackend());
        scripts.acquire("orders", "owner", 30_000);

        fixture.writeKey(ScriptCaller.fenceKey("orders"), "7");
        fixture.writeForeignKey(lockKey("orders"));

        assertEquals(java.util.Optional.of("7"), fixture.backend().get(ScriptCaller.fenceKey("orders")));
        assertEquals(-1L, fixture.backend().pttl(ScriptCaller.fenceKey("orders")));
        assertThrows(
                IllegalStateException.class, () -> fixture.backend().get(lockKey("orders")), "a hash, not a string");
    }

    @Test
    void shouldDelaySubscribeConfirmationsOfEveryBackendUntilReset() {
        LockBackend nodeA = fixture.newBackend();
        LockBackend nodeB = fixture.newBackend();

        fixture.setSubscribeLatency(Duration.ofHours(1));
        CompletableFuture<Subscription> slowA =
                nodeA.subscribe(ScriptCaller.channel("orders"), new RecordingListener());
        CompletableFuture<Subscription> slowB =
                nodeB.subscribe(ScriptCaller.channel("orders"), new RecordingListener());
        fixture.resetFaults();
        CompletableFuture<Subscription> prompt =
                nodeA.subscribe(ScriptCaller.channel("orders"), new RecordingListener());

        assertFalse(slowA.isDone());
        assertFalse(slowB.isDone());
        assertTrue(prompt.isDone());
        assertEquals(3, fixture.backend().subscriberCount(ScriptCaller.channel("orders")), "all three are subscribed");
    }

    @Test
    void shouldApplyNetworkFaultsToEveryBackendUntilReset() {
        ScriptCaller scripts = new ScriptCaller(fixture.newBackend());

        fixture.makeUnavailable();
        assertInstanceOf(ConnectException.class, failure(scripts.acquireAsync("a", "owner", 30_000)));
        fixture.makeAvailable();
        fixture.loseNextReply();
        CompletableFuture<Object> lost = scripts.acquireAsync("b", "owner", 30_000);
        fixture.setLatency(Duration.ofHours(1));
        CompletableFuture<Object> delayed = scripts.acquireAsync("c", "owner", 30_000);

        fixture.makeUnavailable();
        fixture.loseNextReply();
        fixture.resetFaults();

        assertFalse(lost.isDone());
        assertFalse(delayed.isDone());
        assertEquals(1L, ((List<?>) await(scripts.acquireAsync("d", "owner", 30_000))).get(0));
    }

    @Test
    void shouldCloseTheStoreOnClose() {
        LockBackend node = fixture.newBackend();

        fixture.close();

        assertInstanceOf(IllegalStateException.class, failure(new ScriptCaller(node).acquireAsync("a", "o", 30_000)));
    }
}
