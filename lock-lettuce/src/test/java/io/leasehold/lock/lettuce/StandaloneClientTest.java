package io.leasehold.lock.lettuce;

import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Base of the driver tests that need one Lettuce client on the JVM's shared standalone Redis. */
abstract class StandaloneClientTest {

    static StandaloneRedis redis;
    static RedisClient client;

    @BeforeAll
    static void startClient() {
        redis = RedisFixtures.sharedStandalone();
        client = RedisClient.create(redis.uri());
    }

    @AfterAll
    static void stopClient() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
