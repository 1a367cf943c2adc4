package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
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
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A lease counts its validity from when the backend writes the command, not from when the engine
 * called the backend: a driver that first waits for a connection (a pool that opens one inside the
 * call: connect, HELLO, CLIENT SETINFO) does not eat into the lease, while the count stays before
 * Redis can run the command (G4). On a hand-moved clock, with a backend that takes a "connect" before
 * each write.
 */
class ValidityFromWriteTest {

    private static final Duration CONNECT = Duration.ofSeconds(2);

    /** Moves the clock by {@link #CONNECT} before it writes the calls of {@code slowScript}, as a slow connect would. */
    private static final class SlowToConnect extends ForwardingLockBackend {
        private final ManualClock clock;
        private final String slowScript;
        final AtomicLong slowCalls = new AtomicLong();

        SlowToConnect(LockBackend delegate, ManualClock clock, String slowScript) {
            super(delegate);
            this.clock = clock;
            this.slowScript = slowScript;
        }

        @Override
        public CompletableFuture<Object> eval(
                LuaScript script, List<String> keys, List<String> args, Runnable writing) {
            if (script.name().equals(slowScript)) {
                slowCalls.incrementAndGet();
                clock.advance(CONNECT);
            }
            return delegate().eval(script, keys, args, writing);
        }
    }

    @Test
    void shouldCountAnAcquiredLeaseFromTheWriteNotFromTheCall() {
        ManualClock clock = new ManualClock();
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock)) {
            SlowToConnect backend = new SlowToConnect(redis.newNode(), clock, ScriptNames.ACQUIRE);
            try (LockClient client = LockClient.builder(backend).ticker(clock).build()) {
                Duration lease = Duration.ofSeconds(10);
                Lease held = client.lock(
                                "orders:1",
                                LockOptions.builder()
                                        .leaseTime(lease)
                                        .autoRenew(false)
                                        .build())
                        .acquire(Duration.ZERO);

                assertEquals(1, backend.slowCalls.get());
                // 10 s less the drift margin (2 ms + 1%): the 2 s connect before the write are not lost
                assertEquals(lease.minusMillis(102), held.remaining(), "remaining() right after the acquire");
                assertEquals(redis.pttl("leasehold:{orders:1}"), lease.toMillis(), "Redis's own TTL");
            }
        }
    }

    @Test
    void shouldCountARenewalFromItsWriteNotFromItsCall() throws Exception {
        ManualClock clock = new ManualClock();
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock)) {
            SlowToConnect backend = new SlowToConnect(redis.newNode(), clock, ScriptNames.RENEW);
            try (LockClient client = LockClient.builder(backend).ticker(clock).build()) {
                Duration lease = Duration.ofSeconds(9);
                Lease held = client.lock(
                                "orders:2",
                                LockOptions.builder().leaseTime(lease).build())
                        .acquire(Duration.ZERO);

                // When the renewal is due (a third of the lease) and its connect takes 2 s
                clock.advance(lease.dividedBy(3));
                Eventually.until("the renewal ran", () -> redis.pttl("leasehold:{orders:2}") == lease.toMillis());

                // Then the renewed lease counts from the write (at 5 s), not from the call (at 3 s)
                assertEquals(1, backend.slowCalls.get());
                Eventually.until(
                        "the renewal is confirmed; remaining " + held.remaining(),
                        () -> held.remaining().equals(lease.minusMillis(2 + lease.toMillis() / 100)));
                assertEquals(LeaseState.HELD, held.state());
                assertTrue(held.isValid());
            }
        }
    }
}
