package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An acquire whose reply came after its command timed out (a retry with the same owner won the
 * lock) must not be undone while the lease it produced is being released: the clean-up of that late
 * reply used to delete the lock just before the holder's own release ran, which then found the lock
 * gone and reported a false {@code STOLEN} loss (seen as a rare flake of a conformance scenario on
 * Jedis). The test holds each reply and command by hand, so the interleaving is exact.
 */
class LateAcquireReplyDuringReleaseTest {

    private static final String NAME = "orders:late";
    private static final String LOCK_KEY = LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, NAME);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
    private static final LockOptions OPTIONS = LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build();

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private GatedBackend gated;
    private LockClient client;
    private final List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
    private final AtomicInteger releasedEvents = new AtomicInteger();

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        gated = new GatedBackend(redis.newNode());
        client = LockClient.builder(gated).ticker(clock).commandTimeout(COMMAND_TIMEOUT).listener(new LockEventListener() {
            @Override
            public void onLeaseLost(LeaseLoss loss) {
                losses.add(loss);
            }

            @Override
            public void onReleased(String lockName, long fencingToken, Duration heldFor) {
                releasedEvents.incrementAndGet();
            }
        }).build();
    }

    @AfterEach
    void stop() {
        client.close();
        redis.close();
    }

    @Test
    void shouldReleaseCleanlyWhenALateAcquireReplyArrivesWhileTheReleaseIsOnItsWay() throws Exception {
        Lease lease = leaseWonByARetryWhileTheFirstReplyIsHeld();

        // When the holder releases, and the first attempt's reply arrives before its release has run
        CompletableFuture<Object> heldRelease = gated.holdNextRelease();
        CompletableFuture<Boolean> released = lease.releaseAsync();
        Eventually.until("the holder's release was sent", () -> gated.releasesSent.get() == 1);
        gated.completeHeldAcquireReply();
        gated.runHeldRelease(heldRelease);

        // Then the release deleted the holder's lock, and nobody reports a loss
        assertTrue(released.get(10, TimeUnit.SECONDS), "the holder's own release deleted its lock");
        Eventually.until("the release reported", () -> releasedEvents.get() == 1);
        assertEquals(List.of(), losses, "no lease was lost");
        assertFalse(redis.exists(LOCK_KEY), "the lock is free");
        assertTrue(lease.lost().getNow(null) == null, "lost() never completes on a release");
    }

    @Test
    void shouldStillUndoALateAcquireThatRanAfterTheHoldersRelease() throws Exception {
        Lease lease = leaseWonByARetryWhileTheFirstReplyIsHeld();

        // When the holder's release runs first, and only then the late acquire runs again (re-taking the lock)
        assertTrue(lease.release());
        redis.writeKey(LOCK_KEY, gated.firstAcquireOwner.get() + ":" + lease.fencingToken());
        gated.completeHeldAcquireReply();

        // Then the late reply's clean-up frees the lock for others
        Eventually.until("the late acquire was undone", () -> !redis.exists(LOCK_KEY));
        assertEquals(List.of(), losses, "no lease was lost");
    }

    /** A lease whose round's first attempt timed out (its reply held back) and whose retry won. */
    private Lease leaseWonByARetryWhileTheFirstReplyIsHeld() throws Exception {
        gated.holdNextAcquireReply();
        CompletableFuture<Lease> acquiring = client.lock(NAME, OPTIONS).acquireAsync(Duration.ofSeconds(60));
        Eventually.until("the first attempt was sent", () -> gated.acquiresSent.get() == 1);
        clock.advance(COMMAND_TIMEOUT);
        // The timeout's handling schedules the retry on the engine's timer thread: move the clock
        // on in small steps until the retry (20 ms of back-off) has been sent.
        Eventually.until("the retry was sent after the timeout", () -> {
            clock.advance(Duration.ofMillis(50));
            return gated.acquiresSent.get() == 2;
        });
        Lease lease = acquiring.get(10, TimeUnit.SECONDS);
        assertTrue(lease.isValid());
        return lease;
    }

    /** Holds back, on request, the reply of the next acquire and the sending of the next release. */
    private static final class GatedBackend extends ForwardingLockBackend {

        final AtomicInteger acquiresSent = new AtomicInteger();
        final AtomicInteger releasesSent = new AtomicInteger();
        final AtomicReference<String> firstAcquireOwner = new AtomicReference<>();
        private final AtomicReference<CompletableFuture<Object>> heldAcquireReply = new AtomicReference<>();
        private volatile boolean holdAcquireReply;
        private final AtomicReference<CompletableFuture<Object>> releaseToHold = new AtomicReference<>();
        private final AtomicReference<Runnable> heldReleaseSend = new AtomicReference<>();

        GatedBackend(InMemoryLockBackend delegate) {
            super(delegate);
        }

        void holdNextAcquireReply() {
            holdAcquireReply = true;
        }

        CompletableFuture<Object> holdNextRelease() {
            CompletableFuture<Object> reply = new CompletableFuture<>();
            releaseToHold.set(reply);
            return reply;
        }

        void completeHeldAcquireReply() {
            CompletableFuture<Object> reply = heldAcquireReply.getAndSet(null);
            assertTrue(reply != null, "an acquire reply was held");
            reply.complete(List.of(1L, 1L, -1L));
        }

        void runHeldRelease(CompletableFuture<Object> reply) {
            Runnable send = heldReleaseSend.getAndSet(null);
            assertTrue(send != null, "a release was held");
            send.run();
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (script.name().equals(ScriptNames.ACQUIRE)) {
                acquiresSent.incrementAndGet();
                firstAcquireOwner.compareAndSet(null, args.get(0));
                CompletableFuture<Object> reply = super.eval(script, keys, args);
                if (holdAcquireReply) {
                    holdAcquireReply = false;
                    CompletableFuture<Object> held = new CompletableFuture<>();
                    heldAcquireReply.set(held);
                    return held; // the command ran; only its reply waits
                }
                return reply;
            }
            if (script.name().equals(ScriptNames.RELEASE)) {
                releasesSent.incrementAndGet();
                CompletableFuture<Object> held = releaseToHold.getAndSet(null);
                if (held != null) {
                    heldReleaseSend.set(() -> super.eval(script, keys, args).whenComplete((value, error) -> {
                        if (error != null) {
                            held.completeExceptionally(error);
                        } else {
                            held.complete(value);
                        }
                    }));
                    return held; // not sent yet: it reaches Redis when the test says so
                }
            }
            return super.eval(script, keys, args);
        }
    }
}
