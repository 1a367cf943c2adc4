package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.ReleaseUnconfirmedException;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A release that fails says why in its own words: a backend that answered but could not confirm the
 * release (a quorum without a majority's answer, a refused script) is not "Redis could not be reached";
 * only a transient failure (a timeout, a dropped connection) is.
 */
class ReleaseFailureMessageTest {

    /** Fails every release with {@code failure}, after running it (the lock is gone either way). */
    private static final class FailingReleases extends ForwardingLockBackend {
        private final RuntimeException failure;

        FailingReleases(LockBackend delegate, RuntimeException failure) {
            super(delegate);
            this.failure = failure;
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            CompletableFuture<Object> reply = super.eval(script, keys, args);
            if (script.name().equals(ScriptNames.RELEASE)) {
                return reply.thenCompose(ran -> CompletableFuture.failedFuture(failure));
            }
            return reply;
        }
    }

    @Test
    void shouldNameTheBackendsReasonWhenAReleaseFailsWithoutBeingTransient() {
        IllegalStateException unconfirmable =
                new IllegalStateException("no majority of the quorum could confirm the release of lock 'orders:42'");
        try (InMemoryLockBackend redis = new InMemoryLockBackend();
                LockClient client = LockClient.create(new FailingReleases(redis.newNode(), unconfirmable))) {
            Lease lease = client.lock("orders:42").acquire(Duration.ofSeconds(5));

            ReleaseUnconfirmedException unconfirmed = assertThrows(ReleaseUnconfirmedException.class, lease::release);

            assertSame(unconfirmable, unconfirmed.getCause(), "the backend's failure is attached");
            assertTrue(
                    unconfirmed
                            .getMessage()
                            .startsWith("release not confirmed: the backend could not confirm the release;"),
                    unconfirmed.getMessage());
            assertTrue(
                    unconfirmed.getMessage().contains("no majority of the quorum could confirm the release"),
                    "the backend's reason is named: " + unconfirmed.getMessage());
            assertFalse(unconfirmed.getMessage().contains("could not be reached"), unconfirmed.getMessage());
            assertEquals(LeaseState.RELEASED, lease.state());
            assertFalse(lease.lost().isDone(), "not a loss");
        }
    }

    @Test
    void shouldSayRedisCouldNotBeReachedWhenEveryAttemptOfAReleaseFailedTransiently() {
        java.net.ConnectException refused = new java.net.ConnectException("Connection refused");
        try (InMemoryLockBackend redis = new InMemoryLockBackend();
                LockClient client = LockClient.builder(
                                new FailingReleases(redis.newNode(), new RuntimeException(refused)))
                        .commandTimeout(Duration.ofMillis(300))
                        .build()) {
            Lease lease = client.lock("orders:42").acquire(Duration.ofSeconds(5));

            ReleaseUnconfirmedException unconfirmed = assertThrows(ReleaseUnconfirmedException.class, lease::release);

            assertTrue(
                    unconfirmed.getMessage().contains("Redis could not be reached until the release gave up"),
                    unconfirmed.getMessage());
            assertEquals(LeaseState.RELEASED, lease.state());
        }
    }
}
