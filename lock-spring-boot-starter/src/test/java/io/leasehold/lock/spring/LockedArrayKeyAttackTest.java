package io.leasehold.lock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.spring.boot.LeaseholdAutoConfiguration;
import io.leasehold.lock.spring.boot.LeaseholdLockedAutoConfiguration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Attack: the key's value is appended with String concatenation (Object.toString). For an array
 * argument (String[], long[], varargs) that is the identity "[Ljava.lang.String;@1b2c3d", so two calls
 * with EQUAL arguments take DIFFERENT locks: no mutual exclusion at all, silently.
 */
class LockedArrayKeyAttackTest extends OnRealRedis {

    static class Batches {
        final List<String> names = new CopyOnWriteArrayList<>();

        public List<String> names() {
            return names;
        }

        @Locked(name = "batch", key = "#skus")
        public void reserve(String... skus) {
            names.add(LockedLease.current().lockName());
        }

        @Locked(name = "ids", key = "#ids")
        public void touch(long[] ids) {
            names.add(LockedLease.current().lockName());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Batches batches() {
            return new Batches();
        }
    }

    private static ApplicationContextRunner app() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataRedisAutoConfiguration.class,
                        LeaseholdAutoConfiguration.class,
                        LeaseholdLockedAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
                .withUserConfiguration(Beans.class);
    }

    @Test
    void shouldTakeTheSameLockForEqualArrayArguments() {
        app().run(context -> {
            Batches batches = context.getBean(Batches.class);
            batches.reserve("sku-1", "sku-2");
            batches.reserve("sku-1", "sku-2");
            batches.touch(new long[] {1, 2});
            batches.touch(new long[] {1, 2});

            List<String> names = batches.names();
            System.out.println("lock names taken: " + names);
            assertThat(names.get(0)).as("equal String[] arguments, same lock").isEqualTo(names.get(1));
            assertThat(names.get(2)).as("equal long[] arguments, same lock").isEqualTo(names.get(3));
        });
    }
}
