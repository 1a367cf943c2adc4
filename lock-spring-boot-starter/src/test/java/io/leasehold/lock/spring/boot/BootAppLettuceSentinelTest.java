package io.leasehold.lock.spring.boot;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The application booted on Lettuce, over a Sentinel group (master, replica, three Sentinels): see
 * {@link OnBootApplication}.
 */
class BootAppLettuceSentinelTest extends OnBootApplication {

    BootAppLettuceSentinelTest() {
        super(Topology.SENTINEL, "lettuce");
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        redisProperties(registry, Topology.SENTINEL, "lettuce");
    }
}
