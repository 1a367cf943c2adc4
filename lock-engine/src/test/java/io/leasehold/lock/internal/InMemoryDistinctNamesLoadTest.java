package io.leasehold.lock.internal;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.testkit.driver.DistinctNamesLoad;
import io.leasehold.lock.testkit.driver.LoadDriverTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The names leak test of {@link LoadDriverTests} on the in-memory backend: the engine keeps nothing
 * per name. With 10,000 names, not 100,000: a leak shows as one entry per name whatever the count,
 * and 100,000 took 12-16 s here, too much for the normal test run (the driver tests keep 100,000).
 */
class InMemoryDistinctNamesLoadTest {

    private static final int NAMES = 10_000;

    private final InMemoryLockBackend redis = new InMemoryLockBackend();
    private final LockClient client = LockClient.create(redis.newNode());
    private final LockClient other = LockClient.create(redis.newNode());

    @AfterEach
    void close() {
        client.close();
        other.close();
        redis.close();
    }

    @Test
    void shouldLeaveNoPerNameStateAfterTenThousandNames() throws Exception {
        DistinctNamesLoad.acquireAndReleaseEach(client, NAMES, LoadDriverTests.IN_FLIGHT, i -> "distinct:" + i);
        DistinctNamesLoad.handOverEach(
                client, other, LoadDriverTests.CONTENDED_NAMES, LoadDriverTests.IN_FLIGHT, i -> "contended:" + i);

        DistinctNamesLoad.awaitQuiescent(client, other);
    }
}
