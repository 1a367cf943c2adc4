package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class FaultInjectingBackendTest {

    private static final LuaScript SCRIPT = LuaScript.of("count", "return 1");
    private static final List<String> KEYS = List.of("k");

    /** Answers each eval with its sequence number and remembers which thread forwarded it. */
    private static final class CountingFake implements LockBackend {
        final AtomicInteger evals = new AtomicInteger();
        final AtomicReference<Thread> lastCaller = new AtomicReference<>();
        final AtomicInteger closes = new AtomicInteger();
        final AtomicInteger subscribes = new AtomicInteger();
        final CompletableFuture<Subscription> subscription = new CompletableFuture<>();

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            lastCaller.set(Thread.currentThread());
            return CompletableFuture.completedFuture((long) evals.incrementAndGet());
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
            subscribes.incrementAndGet();
            return subscription;
        }

        @Override
        public CompletableFuture<Boolean> shardedPubSub() {
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public int slot(String key) {
            return 4242;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    private static Object await(CompletableFuture<Object> reply) throws Exception {
        return reply.get(10, TimeUnit.SECONDS);
    }

    @Test
    void shouldRunTheCommandButNeverCompleteTheLostReply() throws Exception {
        CountingFake fake = new CountingFake();
        try (FaultInjectingBackend backend = new FaultInjectingBackend(fake)) {
            backend.loseNextReply();

            CompletableFuture<Object> lost = backend.eval(SCRIPT, KEYS, List.of());

            assertEquals(1, fake.evals.get(), "the command reached the delegate");
            assertEquals(2L, await(backend.eval(SCRIPT, KEYS, List.of())), "only one reply is lost");
            assertFalse(lost.isDone());
            assertEquals(1L, backend.faults().lostReplies());
        }
    }

    @Test
    void shouldLoseExactlyOneReplyAcrossBackendsSharingFaults() throws Exception {
        FaultInjectingBackend.Faults faults = new FaultInjectingBackend.Faults();
        CountingFake first = new CountingFake();
        CountingFake second = new CountingFake();
        try (FaultInjectingBackend a = new FaultInjectingBackend(first, faults);
                FaultInjectingBackend b = new FaultInjectingBackend(second, faults)) {
            b.loseNextReply();
            b.loseNextReply();

            CompletableFuture<Object> lost = a.eval(SCRIPT, KEYS, List.of());

            assertEquals(1L, await(b.eval(SCRIPT, KEYS, List.of())));
            assertEquals(2L, await(a.eval(SCRIPT, KEYS, List.of())));
            assertFalse(lost.isDone());
            assertEquals(2, first.evals.get());
            assertFalse(faults.replyLossArmed());
        }
    }

    @Test
    void shouldDelayForwardingOnADaemonLatencyThreadWithoutBlockingTheCaller() throws Exception {
        CountingFake fake = new CountingFake();
        try (FaultInjectingBackend backend = new FaultInjectingBackend(fake)) {
            backend.setLatency(Duration.ofSeconds(1));
            long start = System.nanoTime();

            CompletableFuture<Object> reply = backend.eval(SCRIPT, KEYS, List.of());
            long returnedAfter = System.nanoTime() - start;
            Object value = await(reply);
            long repliedAfter = System.nanoTime() - start;

            assertEquals(1L, value);
            assertTrue(repliedAfter >= TimeUnit.SECONDS.toNanos(1), "forwarded no earlier than the latency");
            assertTrue(returnedAfter < repliedAfter, "eval returned before the reply existed");
            assertEquals("leasehold-fault-latency", fake.lastCaller.get().getName());
            assertTrue(fake.lastCaller.get().isDaemon());
        }
    }

    @Test
    void shouldForwardAtOnceAfterReset() throws Exception {
        CountingFake fake = new CountingFake();
        try (FaultInjectingBackend backend = new FaultInjectingBackend(fake)) {
            backend.setLatency(Duration.ofHours(1));
            backend.setSubscribeLatency(Duration.ofHours(1));
            backend.loseNextReply();
            backend.reset();

            assertEquals(1L, await(backend.eval(SCRIPT, KEYS, List.of())));
            assertSame(Thread.currentThread(), fake.lastCaller.get());
            assertEquals(Duration.ZERO, backend.faults().latency());
            assertSame(fake.subscription, backend.subscribe("c", (channel, message) -> {}), "subscribes at once again");
            assertEquals(Duration.ZERO, backend.faults().subscribeLatency());
        }
    }

    @Test
    void shouldFailDelayedCallsAndStopItsThreadOnClose() throws Exception {
        CountingFake fake = new CountingFake();
        FaultInjectingBackend backend = new FaultInjectingBackend(fake);
        backend.setLatency(Duration.ofMillis(10));
        await(backend.eval(SCRIPT, KEYS, List.of()));
        Thread latencyThread = fake.lastCaller.get();
        backend.setLatency(Duration.ofHours(1));
        CompletableFuture<Object> pending = backend.eval(SCRIPT, KEYS, List.of());

        backend.close();
        backend.close();

        ExecutionException failure = assertThrows(ExecutionException.class, () -> pending.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, failure.getCause());
        assertEquals(1, fake.evals.get(), "the pending call never reached the delegate");
        assertEquals(1, fake.closes.get(), "close is idempotent");
        latencyThread.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(latencyThread.isAlive(), "close stopped the latency thread");
    }

    @Test
    void shouldDelegateSubscribeSlotAndShardedPubSubUntouchedWithoutSubscribeLatency() {
        CountingFake fake = new CountingFake();
        try (FaultInjectingBackend backend = new FaultInjectingBackend(fake)) {
            backend.setLatency(Duration.ofHours(1));
            backend.loseNextReply();

            assertSame(fake.subscription, backend.subscribe("c", (channel, message) -> {}));
            assertEquals(4242, backend.slot("k"));
            assertTrue(backend.shardedPubSub().join());
            assertSame(fake, backend.delegate());
        }
    }

    @Test
    void shouldSubscribeAtOnceButConfirmOnlyAfterTheSubscribeLatencyOnTheLatencyThread() throws Exception {
        CountingFake fake = new CountingFake();
        Subscription active = new Subscription() {
            @Override
            public String channel() {
                return "c";
            }

            @Override
            public CompletableFuture<Void> unsubscribe() {
                return CompletableFuture.completedFuture(null);
            }
        };
        fake.subscription.complete(active);
        try (FaultInjectingBackend backend = new FaultInjectingBackend(fake)) {
            Duration latency = Duration.ofMillis(300);
            backend.setSubscribeLatency(latency);
            long start = System.nanoTime();

            CompletableFuture<Subscription> confirmed = backend.subscribe("c", (channel, message) -> {});
            int subscribesAtReturn = fake.subscribes.get();
            CompletableFuture<Thread> confirmedOn = confirmed.thenApply(subscription -> Thread.currentThread());
            Thread confirmer = confirmedOn.get(10, TimeUnit.SECONDS);

            assertEquals(1, subscribesAtReturn, "forwarded to the delegate at once");
            assertSame(active, confirmed.join());
            assertTrue(System.nanoTime() - start >= latency.toNanos(), "confirmed no earlier than the latency");
            assertEquals("leasehold-fault-latency", confirmer.getName());
            assertTrue(confirmer.isDaemon());
        }
    }

    @Test
    void shouldRelayTheDelegatesSubscribeFailureAfterTheSubscribeLatency() throws Exception {
        CountingFake fake = new CountingFake();
        IllegalStateException refused = new IllegalStateException("refused");
        fake.subscription.completeExceptionally(refused);
        try (FaultInjectingBackend backend = new FaultInjectingBackend(fake)) {
            backend.setSubscribeLatency(Duration.ofMillis(50));

            CompletableFuture<Subscription> confirmed = backend.subscribe("c", (channel, message) -> {});

            ExecutionException failure =
                    assertThrows(ExecutionException.class, () -> confirmed.get(10, TimeUnit.SECONDS));
            assertSame(refused, failure.getCause());
        }
    }

    @Test
    void shouldFailAPendingSubscribeConfirmationOnClose() {
        CountingFake fake = new CountingFake();
        FaultInjectingBackend backend = new FaultInjectingBackend(fake);
        backend.setSubscribeLatency(Duration.ofHours(1));
        CompletableFuture<Subscription> confirmed = backend.subscribe("c", (channel, message) -> {});

        backend.close();

        ExecutionException failure = assertThrows(ExecutionException.class, () -> confirmed.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, failure.getCause());
        assertEquals(1, fake.subscribes.get());
        assertEquals(1, fake.closes.get(), "the delegate, closed, ends the subscription it made");
    }

    @Test
    void shouldRejectNegativeSubscribeLatencyNamingTheValue() {
        try (FaultInjectingBackend backend = new FaultInjectingBackend(new CountingFake())) {
            IllegalArgumentException rejected = assertThrows(
                    IllegalArgumentException.class, () -> backend.setSubscribeLatency(Duration.ofSeconds(-1)));
            assertEquals("subscribeLatency must not be negative, but was PT-1S", rejected.getMessage());
        }
    }

    @Test
    void shouldRejectNegativeLatencyNamingTheValue() {
        try (FaultInjectingBackend backend = new FaultInjectingBackend(new CountingFake())) {
            IllegalArgumentException rejected =
                    assertThrows(IllegalArgumentException.class, () -> backend.setLatency(Duration.ofSeconds(-1)));
            assertEquals("latency must not be negative, but was PT-1S", rejected.getMessage());
        }
    }
}
