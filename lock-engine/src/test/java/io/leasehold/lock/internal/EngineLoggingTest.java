package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the engine logs through {@code System.Logger} (here JUL, the default backend): a listener
 * that throws, a lease lost, a lease going uncertain once per failure streak; never an owner value.
 */
class EngineLoggingTest {

    private static final String NAME = "payments:9";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final long BOUND_SECONDS = 10;

    @RegisterExtension
    final CapturedEngineLog log = new CapturedEngineLog();

    private ManualClock clock;
    private InMemoryLockBackend redis;

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
    }

    @AfterEach
    void stop() {
        redis.close();
    }

    @Test
    void shouldLogAThrowingListenerWithItsClassAndKeepLockingAndOtherListenersGoing() throws Exception {
        ThrowingListener broken = new ThrowingListener();
        CountingListener healthy = new CountingListener();
        try (LockClient client = LockClient.builder(redis.newNode())
                .listener(broken)
                .listener(healthy)
                .build()) {
            // When the broken listener throws on each of 24 events (12 acquisitions and 12 releases)
            for (int i = 0; i < 12; i++) {
                Lease lease = client.lock(NAME).acquire(Duration.ZERO);
                assertTrue(lease.release(), "locking works although a listener throws");
            }
            eventually("the healthy listener heard every event", () -> healthy.events.get() == 24);
        }
        // Then its failures are logged at the 1st and 10th failure only, naming its class, with the exception
        List<LogRecord> failures = log.records().stream()
                .filter(r -> r.getMessage().contains(ThrowingListener.class.getName()))
                .collect(Collectors.toList());
        assertEquals(2, failures.size(), "logged at failures 1 and 10 of 24: " + messages());
        assertEquals(Level.WARNING, failures.get(0).getLevel());
        assertTrue(
                failures.get(0).getMessage().contains("failure 1 "),
                failures.get(0).getMessage());
        assertTrue(
                failures.get(1).getMessage().contains("failure 10 "),
                failures.get(1).getMessage());
        assertTrue(
                failures.get(0).getThrown() instanceof IllegalStateException, "the listener's exception is attached");
    }

    @Test
    void shouldLogALostLeaseOnceWithNameTokenAndReasonButNeverTheOwner() throws Exception {
        String owner;
        try (LockClient client =
                LockClient.builder(redis.newNode()).ticker(clock).build()) {
            Lease lease = client.lock(
                            NAME,
                            LockOptions.builder()
                                    .leaseTime(LEASE)
                                    .autoRenew(false)
                                    .build())
                    .acquire(Duration.ZERO);
            owner = redis.get("leasehold:{" + NAME + "}").orElseThrow();

            clock.advance(LEASE);
            assertEquals(
                    LeaseLoss.Reason.EXPIRED,
                    lease.lost().get(BOUND_SECONDS, TimeUnit.SECONDS).reason());
            eventually("the loss is logged", () -> !lossRecords().isEmpty());
            assertFalse(lease.release(), "the release of a lost lease is a no-op");
            assertFalse(lease.toString().contains(owner), "toString() shows no owner value: " + lease);
        }
        List<LogRecord> losses = lossRecords();
        assertEquals(1, losses.size(), "logged once: " + messages());
        String line = losses.get(0).getMessage();
        assertEquals(Level.WARNING, losses.get(0).getLevel());
        assertTrue(line.contains("'" + NAME + "'") && line.contains("EXPIRED") && line.contains("fencing token"), line);
        for (LogRecord record : log.records()) {
            assertFalse(record.getMessage().contains(owner), "no owner value logged: " + record.getMessage());
        }
    }

    @Test
    void shouldLogRenewalFailuresOncePerStreakNotOncePerAttempt() throws Exception {
        try (LockClient client =
                LockClient.builder(redis.newNode()).ticker(clock).build()) {
            Lease lease = client.lock(
                            NAME, LockOptions.builder().leaseTime(LEASE).build())
                    .acquire(Duration.ZERO);
            redis.makeUnavailable();
            // Three failed renewals: the first after a third of the lease, then retries a tenth apart
            clock.advance(LEASE.dividedBy(3));
            for (int retry = 0; retry < 2; retry++) {
                eventually("the lease is uncertain", () -> lease.state() == io.leasehold.lock.LeaseState.UNCERTAIN);
                clock.advance(LEASE.dividedBy(10));
            }
            redis.makeAvailable();
            clock.advance(LEASE.dividedBy(10));
            eventually("the lease is held again", () -> lease.state() == io.leasehold.lock.LeaseState.HELD);
            eventually(
                    "reconfirmation logged",
                    () -> log.records().stream().anyMatch(r -> r.getMessage().contains("held again")));
        }
        List<String> uncertain = log.records().stream()
                .map(LogRecord::getMessage)
                .filter(message -> message.contains("is uncertain"))
                .collect(Collectors.toList());
        assertEquals(1, uncertain.size(), "one line for the streak: " + messages());
        // The validity left is printed as people read it (about 20 s here), not as PT19.7S
        assertTrue(
                uncertain.get(0).matches(".*stays valid for at most \\d+(\\.\\d)? s while renewal is retried.*"),
                uncertain.get(0));
    }

    private List<LogRecord> lossRecords() {
        return log.records().stream()
                .filter(r -> r.getMessage().contains(" lost: "))
                .collect(Collectors.toList());
    }

    private String messages() {
        return log.records().stream().map(LogRecord::getMessage).collect(Collectors.joining("\n"));
    }

    @Test
    void shouldLogALeaseThatCloseEndedAtInfoNotAsAWarning() throws Exception {
        LockClient client = LockClient.builder(redis.newNode()).build();
        Lease lease = client.lock(NAME).acquire(Duration.ZERO);

        client.close(); // a shutdown with the lease held: its holder is told (CLIENT_CLOSED), then it is freed

        assertEquals(
                LeaseLoss.Reason.CLIENT_CLOSED,
                lease.lost().get(10, TimeUnit.SECONDS).reason());
        List<LogRecord> lines = log.records().stream()
                .filter(r -> r.getMessage().contains("'" + NAME + "'"))
                .collect(Collectors.toList());
        assertEquals(1, lines.size(), "one line for the lease: " + lines);
        assertEquals(Level.INFO, lines.get(0).getLevel(), lines.get(0).getMessage());
        assertTrue(
                lines.get(0).getMessage().contains("LockClient.close()"),
                lines.get(0).getMessage());
    }

    private void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what + "; log: " + messages());
            }
            Thread.sleep(1);
        }
    }

    private static final class ThrowingListener implements LockEventListener {
        @Override
        public void onAcquired(String lockName, long fencingToken, Duration waited) {
            throw new IllegalStateException("broken listener");
        }

        @Override
        public void onReleased(String lockName, long fencingToken, Duration held) {
            throw new IllegalStateException("broken listener");
        }
    }

    private static final class CountingListener implements LockEventListener {
        final AtomicInteger events = new AtomicInteger();

        @Override
        public void onAcquired(String lockName, long fencingToken, Duration waited) {
            events.incrementAndGet();
        }

        @Override
        public void onReleased(String lockName, long fencingToken, Duration held) {
            events.incrementAndGet();
        }
    }
}
