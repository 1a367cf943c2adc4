package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.ReleaseUnconfirmedException;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A release whose command ran in Redis but whose reply was lost to a connection reset is sent again;
 * the resend then finds the lock gone. That is the first attempt's doing, not a lock lost unnoticed:
 * the release reports the lock deleted, and no body-style call reports a loss. A resend that finds
 * another owner's lock proves nothing either (the first attempt may have deleted ours, and the other
 * owner taken it since): the release is unconfirmed, not a loss; the body's result stands.
 */
class ReleaseAfterResetTest {

    /** Runs the first {@code release} for real, then fails its reply as a reset connection would. */
    private static final class ResetAfterFirstRelease extends ForwardingLockBackend {
        final AtomicInteger releases = new AtomicInteger();

        ResetAfterFirstRelease(LockBackend delegate) {
            super(delegate);
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            CompletableFuture<Object> reply = super.eval(script, keys, args);
            if (script.name().equals(ScriptNames.RELEASE) && releases.incrementAndGet() == 1) {
                return reply.thenCompose(
                        ran -> CompletableFuture.failedFuture(new SocketException("Connection reset")));
            }
            return reply;
        }
    }

    @Test
    void shouldCountAReleaseWhoseReplyWasLostToAResetAsDeleted() {
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            ResetAfterFirstRelease backend = new ResetAfterFirstRelease(redis.newNode());
            try (LockClient client = LockClient.create(backend)) {
                Lease lease = client.lock("orders:42").acquire(Duration.ofSeconds(5));

                assertTrue(lease.release(), "the first attempt deleted the lock; the resend found it gone");
                assertEquals(2, backend.releases.get(), "the release was sent again after the reset");
                assertFalse(redis.exists("leasehold:{orders:42}"));
            }
        }
    }

    @Test
    void shouldNotReportALossFromABodyWhoseReleaseWasResent() throws Exception {
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            ResetAfterFirstRelease backend = new ResetAfterFirstRelease(redis.newNode());
            try (LockClient client = LockClient.create(backend)) {
                String result = client.lock("orders:42").callWithLease(Duration.ofSeconds(5), lease -> "done");

                assertEquals("done", result);
                assertEquals(2, backend.releases.get());
            }
        }
    }

    @Test
    void shouldCallAResentReleaseThatFindsAnotherOwnersLockUnconfirmedNotALoss() throws Exception {
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            ResetAfterFirstRelease backend = new ResetAfterFirstRelease(redis.newNode());
            CompletableFuture<ReleaseUnconfirmedException> toldListeners = new CompletableFuture<>();
            List<LeaseLoss> losses = new java.util.concurrent.CopyOnWriteArrayList<>();
            LockEventListener listener = new LockEventListener() {
                @Override
                public void onReleaseUnconfirmed(
                        String lockName, long fencingToken, Duration held, ReleaseUnconfirmedException cause) {
                    toldListeners.complete(cause);
                }

                @Override
                public void onLeaseLost(LeaseLoss loss) {
                    losses.add(loss);
                }
            };
            try (LockClient client =
                            LockClient.builder(backend).listener(listener).build();
                    LockClient rival = LockClient.create(redis.newNode())) {
                Lease[] held = new Lease[1];
                String result = client.lock("orders:42").callWithLease(Duration.ofSeconds(5), lease -> {
                    held[0] = lease;
                    redis.deleteKey("leasehold:{orders:42}"); // our lock is gone...
                    rival.lock("orders:42").acquire(Duration.ofSeconds(5)); // ...and another owner has it
                    return "done";
                });

                assertEquals("done", result, "the body ended while its lease was valid");
                assertEquals(2, backend.releases.get(), "the release was sent again after the reset");
                assertTrue(redis.exists("leasehold:{orders:42}"), "the other owner's lock stays");
                assertEquals(LeaseState.RELEASED, held[0].state());
                assertFalse(held[0].lost().isDone(), "not a loss");
                assertTrue(
                        toldListeners.get(10, TimeUnit.SECONDS).getMessage().contains("another owner"),
                        "listeners hear the release was not confirmed");
                client.close(); // lets the event thread deliver everything queued
                assertEquals(List.of(), losses, "no loss reported");
            }
        }
    }
}
