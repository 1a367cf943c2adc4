package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The backend under the real engine: the Javadoc example, pub/sub wake-up, and a loss signal. */
class InMemoryLockClientTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void shouldRunTheUsageExampleFromTheJavadoc() {
        ManualClock clock = new ManualClock();
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock);
                LockClient nodeA = LockClient.create(redis);
                LockClient nodeB = LockClient.create(redis.newNode())) {
            LockOptions noRenew = LockOptions.builder().autoRenew(false).build();
            Lease first = nodeA.lock("orders:42", noRenew).acquire(Duration.ofSeconds(1));
            clock.advance(noRenew.leaseTime());
            Lease second = nodeB.lock("orders:42").acquire(Duration.ofSeconds(1));

            assertTrue(second.fencingToken() > first.fencingToken());
            assertTrue(redis.exists("leasehold:{orders:42}"));
        }
    }

    @Test
    void shouldWakeAWaiterOnAnotherNodeWhenTheHolderReleases() throws Exception {
        // The clock stands still, so the lock can only come free by release, never by expiry.
        try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(new ManualClock());
                LockClient nodeA = LockClient.create(redis);
                LockClient nodeB = LockClient.create(redis.newNode())) {
            LockOptions longLease = LockOptions.builder()
                    .leaseTime(Duration.ofMinutes(5))
                    .autoRenew(false)
                    .build();
            Lease held = nodeA.lock("orders:42", longLease).acquire(WAIT);
            CompletableFuture<Lease> waiter = nodeB.lock("orders:42", longLease).acquireAsync(Duration.ofMinutes(1));

            held.release();

            Lease next = waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(next.fencingToken() > held.fencingToken());
        }
    }

    @Test
    void shouldSignalStolenWhenTheLockIsDeletedBehindTheHoldersBack() throws Exception {
        try (InMemoryLockBackend redis = new InMemoryLockBackend();
                LockClient client = LockClient.create(redis)) {
            LockOptions shortLease =
                    LockOptions.builder().leaseTime(Duration.ofMillis(300)).build();
            Lease lease = client.lock("orders:42", shortLease).acquire(WAIT);

            redis.deleteKey("leasehold:{orders:42}");

            LeaseLoss loss = lease.lost().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(LeaseLoss.Reason.STOLEN, loss.reason());
        }
    }

    @Test
    void shouldKeepRenewingHealthyLeasesWhenAnotherApplicationOverwritesOneLockKey() throws Exception {
        try (InMemoryLockBackend redis = new InMemoryLockBackend();
                LockClient client = LockClient.create(redis)) {
            LockOptions renewed =
                    LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build();
            Lease a = client.lock("a", renewed).acquire(WAIT);
            Lease b = client.lock("b", renewed).acquire(WAIT);
            Lease c = client.lock("c", renewed).acquire(WAIT);

            redis.writeForeignKey("leasehold:{b}");

            LeaseLoss loss = b.lost().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(LeaseLoss.Reason.STOLEN, loss.reason(), "the renewal found b held by something else");
            assertTrue(a.isValid() && c.isValid(), "the healthy leases of the same renewal batch are kept");
            assertTrue(a.release());
            assertTrue(c.release());
        }
    }

    @Test
    void shouldFailAnAcquireOverAForeignKeyAsABackendFailureNamingTheKey() {
        try (InMemoryLockBackend redis = new InMemoryLockBackend();
                LockClient client = LockClient.create(redis)) {
            redis.writeForeignKey("leasehold:{orders:42}");

            LockBackendException failure = assertThrows(
                    LockBackendException.class, () -> client.lock("orders:42").acquire(WAIT));

            String cause = String.valueOf(failure.getCause());
            assertTrue(
                    cause.contains("key 'leasehold:{orders:42}' holds a value that is not a Leasehold lock (a hash"),
                    cause);
        }
    }

    @Test
    void shouldGiveNamesThatLookAlikeOnceEscapedTheirOwnLocks() {
        try (InMemoryLockBackend redis = new InMemoryLockBackend();
                LockClient client = LockClient.create(redis)) {
            Lease brace = client.lock("}x").acquire(WAIT);
            Lease lookAlike = client.lock("%7Dx").acquire(WAIT);

            assertTrue(brace.isValid() && lookAlike.isValid(), "two names, two locks");
            assertTrue(redis.exists("leasehold:{%7Dx}"));
            assertTrue(redis.exists("leasehold:{%257Dx}"));
        }
    }

    @Test
    void shouldRejectANameWithAnUnpairedSurrogateBeforeItReachesRedis() {
        try (InMemoryLockBackend redis = new InMemoryLockBackend();
                LockClient client = LockClient.create(redis)) {
            IllegalArgumentException rejected =
                    assertThrows(IllegalArgumentException.class, () -> client.lock("ab\uD800"));

            assertEquals(
                    "name must be well-formed Unicode, but has an unpaired surrogate \\uD800 at index 2 ('ab\\uD800')",
                    rejected.getMessage());
            assertEquals(java.util.Set.of(), redis.keys());
        }
    }
}
