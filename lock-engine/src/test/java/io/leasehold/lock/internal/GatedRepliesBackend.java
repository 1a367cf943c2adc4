package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Holds back, on request, the reply of the next acquire (the command runs; only its reply waits) and
 * the sending of the next release (it reaches Redis when the test says so); records every release sent.
 */
final class GatedRepliesBackend extends ForwardingLockBackend {

    final AtomicInteger acquiresSent = new AtomicInteger();
    final AtomicReference<String> firstAcquireOwner = new AtomicReference<>();
    /** For each release sent: its owner and what {@link #atRelease} said at that moment. */
    final List<String> releases = new CopyOnWriteArrayList<>();

    volatile Supplier<String> atRelease = () -> "";
    private final AtomicReference<CompletableFuture<Object>> heldAcquireReply = new AtomicReference<>();
    private volatile boolean holdAcquireReply;
    private final AtomicReference<CompletableFuture<Object>> releaseToHold = new AtomicReference<>();
    private final AtomicReference<Runnable> heldReleaseSend = new AtomicReference<>();

    GatedRepliesBackend(InMemoryLockBackend delegate) {
        super(delegate);
    }

    void holdNextAcquireReply() {
        holdAcquireReply = true;
    }

    void completeHeldAcquireReply() {
        CompletableFuture<Object> reply = heldAcquireReply.getAndSet(null);
        if (reply == null) {
            throw new AssertionError("no acquire reply was held");
        }
        reply.complete(List.of(1L, 1L, -1L));
    }

    /** Holds the next release back (not sent to Redis) until {@link #sendHeldRelease()}; returns its reply. */
    CompletableFuture<Object> holdNextRelease() {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        releaseToHold.set(reply);
        return reply;
    }

    void sendHeldRelease() {
        Runnable send = heldReleaseSend.getAndSet(null);
        if (send == null) {
            throw new AssertionError("no release was held");
        }
        send.run();
    }

    /**
     * A lease of {@code name} whose round's first acquire timed out (its reply held back here) and
     * whose retry, with the same owner, won; {@code client} must run on {@code clock} with
     * {@code commandTimeout}. The late reply is still held: {@link #completeHeldAcquireReply()} sends it.
     */
    Lease leaseWonByARetry(
            LockClient client, ManualClock clock, Duration commandTimeout, String name, LockOptions options)
            throws Exception {
        holdNextAcquireReply();
        CompletableFuture<Lease> acquiring = client.lock(name, options).acquireAsync(Duration.ofSeconds(60));
        Eventually.until("the first attempt was sent", () -> acquiresSent.get() == 1);
        clock.advance(commandTimeout);
        // The timeout's handling schedules the retry on the engine's timer thread: move the clock
        // on in small steps until the retry (20 ms of back-off) has been sent.
        Eventually.until("the retry was sent after the timeout", () -> {
            clock.advance(Duration.ofMillis(50));
            return acquiresSent.get() == 2;
        });
        Lease lease = acquiring.get(10, TimeUnit.SECONDS);
        assertTrue(lease.isValid());
        return lease;
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
            releases.add(args.get(0) + " " + atRelease.get());
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
