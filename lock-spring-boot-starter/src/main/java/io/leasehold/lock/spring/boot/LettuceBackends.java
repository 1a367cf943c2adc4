package io.leasehold.lock.spring.boot;

import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.leasehold.lock.spi.LockBackend;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A backend that shares the application's Lettuce client: the {@code RedisClient} (standalone or
 * Sentinel, whose URI the factory built from {@code spring.data.redis.*}: host, port, database,
 * credentials, TLS, timeouts) or the {@code RedisClusterClient} that the connection factory created. The
 * backend opens its two connections (scripts and pub/sub) on that client, so they share its event loops
 * and resources; it never shuts the client down: the factory does, after the lock client is closed. Only
 * loaded when Lettuce is on the class path.
 */
final class LettuceBackends {

    private LettuceBackends() {}

    static LockBackend create(LettuceConnectionFactory factory) {
        if (!factory.isRunning()) {
            // A factory with early start-up turned off makes its client when the context starts it (and
            // getNativeClient() throws until then); the lock client needs it now, and starting twice is a
            // no-op for the factory
            factory.start();
        }
        AbstractRedisClient client = factory.getRequiredNativeClient();
        if (client instanceof RedisClusterClient) {
            return LettuceLockBackend.create((RedisClusterClient) client);
        }
        if (client instanceof RedisClient) {
            return LettuceLockBackend.create((RedisClient) client);
        }
        throw new IllegalStateException("Leasehold cannot use the Lettuce client of the application's"
                + " LettuceConnectionFactory: it is a " + client.getClass().getName()
                + ", not a RedisClient or a RedisClusterClient");
    }
}
