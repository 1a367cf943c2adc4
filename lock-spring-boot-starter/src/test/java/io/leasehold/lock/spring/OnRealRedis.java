package io.leasehold.lock.spring;

import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * A test class of the starter on a real {@code redis-server} of its own: started before its first test,
 * stopped after its last, emptied before each test.
 */
public abstract class OnRealRedis {

    protected static StandaloneRedis redis;
    protected static RedisNode server;

    @BeforeAll
    static void startRedis() {
        redis = RedisFixtures.startStandalone();
        server = redis.server();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void emptyRedis() {
        server.command("FLUSHALL");
    }
}
