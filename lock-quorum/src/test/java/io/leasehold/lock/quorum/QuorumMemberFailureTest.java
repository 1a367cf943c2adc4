package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockException;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.ReleaseUnconfirmedException;
import io.leasehold.lock.spi.LockKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * On real {@code redis-server}s: a quorum stays usable while a minority of its members is killed
 * (kill -9) with leases held and contended (no lease lost, even one that had gone missing on a member
 * and was put back by a renewal; acquisitions go on, one holder at a time, tokens rising), and grants nothing while a majority is down (its holder told, the waiter failing).
 */
class QuorumMemberFailureTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final LockOptions RENEWED =
            LockOptions.builder().leaseTime(LEASE).autoRenew(true).build();

    @ParameterizedTest(name = "{0}, {2} of {1} killed")
    @CsvSource({"lettuce, 3, 1", "jedis, 3, 1", "lettuce, 5, 2", "jedis, 5, 2"})
    void shouldKeepALeasePutBackWhereItWentMissingAndGoOnGrantingWhileAMinorityIsKilled(
            String driver, int size, int killed) throws Exception {
        try (QuorumFixture fixture = quorum(driver, size);
                LockClient holder = LockClient.create(fixture.newBackend());
                LockClient first = LockClient.create(fixture.newBackend());
                LockClient second = LockClient.create(fixture.newBackend())) {
            holder.lock("warm-up", RENEWED).acquire(Duration.ofSeconds(10)).release(); // every member joined
            // Given a renewed lease whose copy on the last member went missing (a partition longer than the
            // lease, a grant that came too late): on exactly a majority when the minority is killed, unless
            // the watchdog's renewal puts it back
            Lease held = holder.lock("held", RENEWED).acquire(Duration.ofSeconds(10));
            for (int i = 0; i < size; i++) {
                assertTrue(copyOn(fixture, i).isPresent(), "member " + i + " holds a copy of the lease");
            }
            String last = copyOn(fixture, size - 1).orElseThrow();
            RedisMembers.server(fixture, size - 1).command("DEL", LockKeys.lockKey("leasehold:", "held"));
            awaitCopyOn(fixture, size - 1, last.substring(0, last.indexOf(':') + 1) + held.fencingToken() + ":");
            try (Contention contention = new Contention(List.of(first, second))) {
                contention.awaitAcquisitions(20);

                // When a minority is killed
                for (int i = 0; i < killed; i++) {
                    RedisMembers.server(fixture, i).kill();
                }
                int atKill = contention.acquisitions.get();
                contention.awaitAcquisitions(atKill + 20);
                // (two leases' time: every lease was renewed since the kill, by the members left)
                TimeUnit.MILLISECONDS.sleep(2 * LEASE.toMillis());
                contention.close();

                // Then the held lease is not lost, acquisitions went on, one holder at a time, tokens rising
                assertFalse(
                        held.lost().isDone(),
                        () -> "held lease lost: " + held.lost().join());
                assertTrue(held.isValid(), "held lease valid");
                assertNotEquals(LeaseState.LOST, held.state());
                assertTrue(contention.acquisitions.get() >= atKill + 20, "acquisitions went on after the kill");
                // (a release in flight when the members died may go unconfirmed, ReleaseUnconfirmedException:
                // a member left may hold another attempt's copy, and no majority can say "gone" before the
                // dead members' command timeout; the lock then expires on its own. Anything else fails.)
                assertEquals(List.of(), contention.failures(), "contenders' failures");
                assertFalse(contention.overlapped.get(), "two holders at once");
                contention.assertTokensRise();
                assertTrue(held.release(), "release of the held lease");
            }
        }
    }

    @Test
    void shouldTellTheHolderAndGrantNothingWhileAMajorityIsDown() throws Exception {
        try (QuorumFixture fixture = quorum("lettuce", 3);
                LockClient holder = LockClient.create(fixture.newBackend());
                LockClient other = LockClient.create(fixture.newBackend())) {
            Lease held = holder.lock("held", RENEWED).acquire(Duration.ofSeconds(10));
            other.lock("other", RENEWED).acquire(Duration.ofSeconds(10)).release(); // the other client is in use

            for (int i = 0; i < 2; i++) {
                RedisMembers.server(fixture, i).kill();
            }

            LeaseLoss loss = held.lost().get(3 * LEASE.toSeconds(), TimeUnit.SECONDS);
            assertEquals(LeaseLoss.Reason.BACKEND_UNAVAILABLE, loss.reason());
            LockException refused = assertThrows(
                    LockException.class, () -> other.lock("held", RENEWED).acquire(Duration.ofSeconds(2)));
            assertTrue(
                    refused instanceof LockBackendException || refused.getCause() instanceof QuorumUnavailableException,
                    () -> "a backend failure, never a grant: " + refused);
        }
    }

    private static QuorumFixture quorum(String driver, int size) {
        return driver.equals("lettuce") ? RedisMembers.lettuce(size) : RedisMembers.jedis(size);
    }

    /** Member {@code i}'s redis-server. */
    /** The value member {@code i} holds for the lock "held", read on the server. */
    private static Optional<String> copyOn(QuorumFixture fixture, int i) {
        return Optional.ofNullable(
                (String) RedisMembers.server(fixture, i).command("GET", LockKeys.lockKey("leasehold:", "held")));
    }

    /** Waits until member {@code i} holds the lock "held" with a value that starts with {@code prefix}. */
    private static void awaitCopyOn(QuorumFixture fixture, int i, String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!copyOn(fixture, i).filter(v -> v.startsWith(prefix)).isPresent()) {
            assertTrue(
                    System.nanoTime() - deadline < 0,
                    () -> "member " + i + " holds the lease again within 10 s (put back by a renewal), but holds "
                            + copyOn(fixture, i));
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /**
     * Two threads per client acquiring and releasing one lock in a loop, checking one holder at a time; a
     * thread stops at its first failure other than an unconfirmed release.
     */
    private static final class Contention implements AutoCloseable {

        final AtomicInteger acquisitions = new AtomicInteger();
        final AtomicBoolean overlapped = new AtomicBoolean();
        final AtomicInteger unconfirmedReleases = new AtomicInteger();
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        /** Tokens in the order the critical sections ran (appended inside them). */
        private final List<Long> tokens = new ArrayList<>();

        private final List<Thread> threads = new ArrayList<>();

        Contention(List<LockClient> clients) {
            for (LockClient client : clients) {
                for (int t = 0; t < 2; t++) {
                    Thread thread = new Thread(() -> loop(client), "contender");
                    thread.setDaemon(true);
                    threads.add(thread);
                    thread.start();
                }
            }
        }

        private void loop(LockClient client) {
            while (running.get()) {
                try (Lease lease = client.lock("hot", RENEWED).acquire(Duration.ofSeconds(20))) {
                    if (inside.incrementAndGet() > 1) {
                        overlapped.set(true);
                    }
                    synchronized (tokens) {
                        tokens.add(lease.fencingToken());
                    }
                    inside.decrementAndGet();
                    acquisitions.incrementAndGet();
                } catch (ReleaseUnconfirmedException e) {
                    unconfirmedReleases.incrementAndGet();
                } catch (RuntimeException e) {
                    if (running.get()) {
                        failures.add(e);
                    }
                    return;
                }
            }
        }

        void awaitAcquisitions(int count) {
            try {
                Members.await(count + " acquisitions", () -> acquisitions.get() >= count || !failures.isEmpty());
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + ": " + acquisitions.get() + " reached", e);
            }
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
        }

        List<String> failures() {
            return failures.stream().map(String::valueOf).toList();
        }

        void assertTokensRise() {
            synchronized (tokens) {
                for (int i = 1; i < tokens.size(); i++) {
                    assertTrue(tokens.get(i) > tokens.get(i - 1), "token " + i + " rises: " + tokens);
                }
            }
        }
    }
}
