package io.leasehold.lock.spring.boot;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The application booted on Lettuce, over a standalone server: see {@link OnBootApplication}. */
class BootAppLettuceStandaloneTest extends OnBootApplication {

    BootAppLettuceStandaloneTest() {
        super(Topology.STANDALONE, "lettuce");
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        redisProperties(registry, Topology.STANDALONE, "lettuce");
    }
}
