package io.leasehold.lock.spring.boot;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The application booted on Jedis, over a Sentinel group (master, replica, three Sentinels): see
 * {@link OnBootApplication}.
 */
class BootAppJedisSentinelTest extends OnBootApplication {

    BootAppJedisSentinelTest() {
        super(Topology.SENTINEL, "jedis");
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        redisProperties(registry, Topology.SENTINEL, "jedis");
    }
}
