package io.leasehold.lock.micrometer;

import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.redis.OwningLockBackend;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;

/**
 * The meters on a real {@code redis-server} (started by the tests) through Lettuce, the outage done
 * for real by pausing the server with {@code SIGSTOP}.
 */
class RedisLeaseholdMetricsTest extends LeaseholdMetricsTestBase {

    @Override
    protected LockBackendFixture createFixture() {
        return RedisLockBackendFixture.sharedStandalone("metrics-lettuce", redis -> {
            RedisURI uri = RedisURI.create(redis.uri());
            uri.setTimeout(Duration.ofSeconds(5));
            RedisClient client = RedisClient.create(uri);
            return OwningLockBackend.of(
                    LettuceLockBackend.create(client), () -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
        });
    }
}
