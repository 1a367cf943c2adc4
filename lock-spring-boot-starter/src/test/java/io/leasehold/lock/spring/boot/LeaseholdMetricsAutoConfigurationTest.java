package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.micrometer.LeaseholdMeters;
import io.leasehold.lock.micrometer.LeaseholdMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The lock meters in an application with Spring Boot's metrics: recorded into the application's registry
 * from the auto-configured client's events; none without metrics. The lock client runs on an in-memory
 * backend bean here: what is tested is the wiring of the meters, not Redis.
 */
class LeaseholdMetricsAutoConfigurationTest {

    private static ApplicationContextRunner app() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataRedisAutoConfiguration.class,
                        LeaseholdAutoConfiguration.class,
                        LeaseholdMetricsAutoConfiguration.class))
                .withUserConfiguration(InMemory.class);
    }

    @Test
    void shouldRecordTheLockClientsMetersIntoTheApplicationsRegistry() {
        app().withConfiguration(AutoConfigurations.of(
                        MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LeaseholdMetrics.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);

                    context.getBean(LockClient.class)
                            .lock("orders:42")
                            .acquire(Duration.ZERO)
                            .release();

                    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                    Timer acquired = null;
                    while (acquired == null && System.nanoTime() < deadline) {
                        acquired = registry.find(LeaseholdMeters.ACQUIRE)
                                .tag(LeaseholdMeters.TAG_LOCK_GROUP, "orders")
                                .timer();
                        Thread.sleep(5);
                    }
                    assertThat(acquired)
                            .as("the acquire timer of lock group 'orders'")
                            .isNotNull();
                    assertThat(acquired.count()).isEqualTo(1);
                });
    }

    @Test
    void shouldAddNoMetersWithoutMetrics() {
        app().run(context -> assertThat(context)
                .hasNotFailed()
                .hasSingleBean(LockClient.class)
                .doesNotHaveBean(LeaseholdMetrics.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class InMemory {
        @Bean
        InMemoryLockBackend lockBackend() {
            return new InMemoryLockBackend();
        }
    }
}
