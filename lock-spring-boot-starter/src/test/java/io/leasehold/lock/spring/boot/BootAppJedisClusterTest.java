package io.leasehold.lock.spring.boot;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The application booted on Jedis, over a three-master Redis Cluster: see {@link OnBootApplication}. */
class BootAppJedisClusterTest extends OnBootApplication {

    BootAppJedisClusterTest() {
        super(Topology.CLUSTER, "jedis");
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        redisProperties(registry, Topology.CLUSTER, "jedis");
    }
}
