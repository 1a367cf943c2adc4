package io.leasehold.lock.testkit.driver;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.internal.EngineFootprint;
import io.leasehold.lock.testkit.InMemoryLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The 100,000-names leak test of {@link LoadDriverTests} on the in-memory backend: the engine keeps nothing per name. */
class InMemoryDistinctNamesLoadTest {

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
    void shouldLeaveNoPerNameStateAfterAHundredThousandNames() throws Exception {
        DistinctNamesLoad.acquireAndReleaseEach(client, LoadDriverTests.DISTINCT_NAMES, LoadDriverTests.IN_FLIGHT, i -> "distinct:" + i);
        DistinctNamesLoad.handOverEach(client, other, LoadDriverTests.CONTENDED_NAMES, LoadDriverTests.IN_FLIGHT, i -> "contended:" + i);

        Eventually.until("both engines idle: " + EngineFootprint.of(client) + " " + EngineFootprint.of(other),
                () -> EngineFootprint.of(client).isIdle() && EngineFootprint.of(other).isIdle());
    }
}
