package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.driver.DriverUnderTest;
import io.leasehold.lock.testkit.redis.OwningLockBackend;
import io.leasehold.lock.testkit.redis.RedisTopology;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;

/** Lettuce for the shared driver tests: a backend over its own client, closed with it. */
final class LettuceDriver implements DriverUnderTest {

    @Override
    public OpenedBackend open(RedisTopology topology) {
        if (topology.kind() == RedisTopology.Kind.CLUSTER) {
            RedisClusterClient client = LettuceTestClients.clusterClient(topology);
            LettuceLockBackend backend = LettuceLockBackend.create(client);
            return new OpenedBackend(
                    OwningLockBackend.of(backend, () -> LettuceTestClients.shutdown(client)), backend::scriptFallbacks);
        }
        RedisClient client = LettuceTestClients.redisClient(topology);
        LettuceLockBackend backend = LettuceLockBackend.create(client);
        return new OpenedBackend(
                OwningLockBackend.of(backend, () -> LettuceTestClients.shutdown(client)), backend::scriptFallbacks);
    }
}
