package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A lock whose key has no TTL (someone ran PERSIST on it, or wrote it by hand) never runs out, and
 * its contended replies carry a remaining time of -1: a waiter must not take that for "about to run
 * out" and ask again every few milliseconds for its whole wait, yet must still find the lock free
 * soon after the key is deleted (a DEL publishes no release message).
 */
class HolderWithoutTtlTest {

    private static final String NAME = "untimed";
    private static final String KEY = "leasehold:{" + NAME + "}";

    private InMemoryLockBackend redis;
    private CountingLockBackend counted;
    private LockClient client;

    @BeforeEach
    void start() {
        redis = new InMemoryLockBackend();
        counted = new CountingLockBackend(redis);
        client = LockClient.builder(counted).build();
        redis.writeKey(KEY, "0123456789abcdef0123456789abcdef:42"); // (SET without PX: no TTL)
    }

    @AfterEach
    void stop() {
        client.close();
        redis.close();
    }

    @Test
    void shouldNotPollALockWhoseHolderHasNoTtl() throws Exception {
        Optional<Lease> lease =
                client.lock(NAME).tryAcquireAsync(Duration.ofMillis(2500)).get(20, TimeUnit.SECONDS);

        assertTrue(lease.isEmpty(), "the untimed holder keeps the lock");
        // Asking once a second makes about 3 calls in 2.5 s, plus one when the subscription became
        // active; a waiter that took -1 for a TTL running out asked every 5 ms (hundreds of calls).
        long asked = counted.count(ScriptNames.ACQUIRE);
        assertTrue(asked <= 6, "acquire calls during a 2.5 s wait on an untimed holder: " + asked);
    }

    @Test
    void shouldTakeALockWhoseUntimedHolderWasDeleted() throws Exception {
        CompletableFuture<Optional<Lease>> waiting = client.lock(NAME).tryAcquireAsync(Duration.ofSeconds(15));
        Eventually.until("the waiter asked once", () -> counted.count(ScriptNames.ACQUIRE) >= 1);

        redis.deleteKey(KEY); // publishes nothing: the waiter finds out by asking

        Optional<Lease> lease = waiting.get(20, TimeUnit.SECONDS);
        assertTrue(lease.isPresent(), "the waiter took the lock once its key was gone");
        lease.get().release();
    }
}
