package io.leasehold.lock.spring.boot;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The application booted on Jedis, over a standalone server: see {@link OnBootApplication}. */
class BootAppJedisStandaloneTest extends OnBootApplication {

    BootAppJedisStandaloneTest() {
        super(Topology.STANDALONE, "jedis");
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        redisProperties(registry, Topology.STANDALONE, "jedis");
    }
}
