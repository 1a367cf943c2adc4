package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockBackend;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The durations in the engine's log lines and in the causes listeners get read as people read them. */
class LogDurationsTest {

    @RegisterExtension
    final CapturedEngineLog log = new CapturedEngineLog();

    @Test
    void shouldNameTheCloseTimeoutAsPeopleReadItWhenCloseLeavesALockBehind() {
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            LockClient client = LockClient.builder(redis.newNode())
                    .closeTimeout(Duration.ofMillis(1500))
                    .build();
            client.lock("orders:42").acquire(Duration.ZERO);
            // Given a Redis that stops answering in time, the release cannot settle within the close timeout
            redis.setLatency(Duration.ofSeconds(30));
            client.close();
            List<String> left = linesContaining("not settled");
            assertEquals(1, left.size(), "log: " + log.messages());
            assertTrue(left.get(0).contains("within the close timeout of 1.5 s: [orders:42]"), left.get(0));
        }
    }

    @Test
    void shouldNameHowLongAnOverdueRenewalWaitedAsPeopleReadIt() {
        ManualClock clock = new ManualClock();
        List<Throwable> causes = new CopyOnWriteArrayList<>();
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock);
                RenewalsNeverAnswered backend = new RenewalsNeverAnswered(redis.newNode());
                LockClient client = LockClient.builder(backend)
                        .ticker(clock)
                        .listener(new LockEventListener() {
                            @Override
                            public void onLeaseUncertain(
                                    String lockName, long fencingToken, Duration validFor, Throwable cause) {
                                causes.add(cause);
                            }
                        })
                        .build()) {
            Lease lease = autoRenewedThreeSecondLease(client);
            // When its renewal, sent after a second, has no reply 1.5 s later (past halfway to the loss check)
            clock.advance(Duration.ofSeconds(1));
            Eventually.until("the renewal was sent", () -> backend.renewals.get() == 1);
            clock.advance(Duration.ofMillis(1500));
            Eventually.until("the lease was told uncertain", () -> !causes.isEmpty());
            // Then the cause says how long it waited in human units
            String message = causes.get(0).getMessage();
            assertTrue(message.startsWith("no reply to 'renew' within 1.5 s"), message);
            assertTrue(lease.isValid(), "still valid: " + lease);
        }
    }

    @Test
    void shouldNameHowLongAnUnansweredRenewalWaitedAsPeopleReadItInTheLoss() throws Exception {
        ManualClock clock = new ManualClock();
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock);
                RenewalsNeverAnswered backend = new RenewalsNeverAnswered(redis.newNode());
                LockClient client = LockClient.builder(backend).ticker(clock).build()) {
            Lease lease = autoRenewedThreeSecondLease(client);
            // When its renewal, sent after a second, never gets a reply (the 5 s command timeout outlasts the lease)
            clock.advance(Duration.ofSeconds(1));
            Eventually.until("the renewal was sent", () -> backend.renewals.get() == 1);
            clock.advance(Duration.ofSeconds(2));
            LeaseLoss loss = lease.lost().get(10, TimeUnit.SECONDS);
            // Then the loss's cause says how long the renewal waited in human units
            assertEquals(LeaseLoss.Reason.BACKEND_UNAVAILABLE, loss.reason());
            String message = loss.cause().orElseThrow().getMessage();
            assertTrue(
                    message.matches("no reply to the renewal sent [0-9.]+ s ago before the lease's validity ran out"),
                    message);
        }
    }

    private static Lease autoRenewedThreeSecondLease(LockClient client) {
        return client.lock(
                        "orders:42",
                        LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build())
                .acquire(Duration.ZERO);
    }

    private List<String> linesContaining(String part) {
        return log.messagesContaining(part);
    }

    /** Lets every call through but renewals, which never get a reply. */
    private static final class RenewalsNeverAnswered extends ForwardingLockBackend {
        final AtomicInteger renewals = new AtomicInteger();

        RenewalsNeverAnswered(LockBackend delegate) {
            super(delegate);
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (script.name().equals(ScriptNames.RENEW)) {
                renewals.incrementAndGet();
                return new CompletableFuture<>();
            }
            return super.eval(script, keys, args);
        }
    }
}
