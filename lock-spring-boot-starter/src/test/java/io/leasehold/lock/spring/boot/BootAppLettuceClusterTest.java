package io.leasehold.lock.spring.boot;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The application booted on Lettuce, over a three-master Redis Cluster: see {@link OnBootApplication}. */
class BootAppLettuceClusterTest extends OnBootApplication {

    BootAppLettuceClusterTest() {
        super(Topology.CLUSTER, "lettuce");
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        redisProperties(registry, Topology.CLUSTER, "lettuce");
    }
}
