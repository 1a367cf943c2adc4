package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.spring.Locked;
import io.leasehold.lock.spring.LockedLease;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The starter in an application that has only one of the two Redis clients, as most have: run only by
 * the module's surefire executions {@code lettuce-only} (without Jedis on the class path) and
 * {@code jedis-only} (without Lettuce), which name the client in {@code leasehold.test.client}; the
 * normal run, with both clients, leaves it out. The other client's classes must never be needed.
 */
class OneClientOnTheClassPathTest {

    private static final String CLIENT = System.getProperty("leasehold.test.client", "");

    static class Jobs {
        @Locked(name = "jobs", key = "#name")
        public String run(String name) {
            return LockedLease.current().lockName();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    @Test
    void shouldLockWithTheOneClientTheApplicationHas() {
        assertThat(CLIENT)
                .as("leasehold.test.client, set by the lettuce-only and jedis-only executions")
                .isIn("lettuce", "jedis");
        String absent = CLIENT.equals("lettuce") ? "redis.clients.jedis.UnifiedJedis" : "io.lettuce.core.RedisClient";
        assertThatThrownBy(() -> Class.forName(absent))
                .as("the other client is not on the class path")
                .isInstanceOf(ClassNotFoundException.class);

        try (StandaloneRedis redis = RedisFixtures.startStandalone()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(
                            DataRedisAutoConfiguration.class,
                            LeaseholdAutoConfiguration.class,
                            LeaseholdMetricsAutoConfiguration.class,
                            LeaseholdHealthAutoConfiguration.class,
                            LeaseholdLockedAutoConfiguration.class))
                    .withPropertyValues(
                            "spring.data.redis.host=" + redis.host(),
                            "spring.data.redis.port=" + redis.port(),
                            "spring.data.redis.client-type=" + CLIENT)
                    .withUserConfiguration(Beans.class)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        Lease lease = context.getBean(LockClient.class)
                                .lock("orders:42")
                                .acquire(Duration.ZERO);
                        assertThat(redis.server().command("EXISTS", "leasehold:{orders:42}"))
                                .isEqualTo(1L);
                        lease.release();
                        assertThat(context.getBean(Jobs.class).run("nightly")).isEqualTo("jobs:nightly");
                    });
        }
    }
}
