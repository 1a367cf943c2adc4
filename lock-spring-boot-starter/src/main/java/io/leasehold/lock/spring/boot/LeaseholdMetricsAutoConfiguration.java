package io.leasehold.lock.spring.boot;

import io.leasehold.lock.micrometer.LeaseholdMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The lock client's meters ({@link LeaseholdMetrics}) when the application records metrics: a
 * {@link LeaseholdMetrics} bean, which is both a {@code LockEventListener} (so the auto-configured client
 * reports to it) and a {@code MeterBinder}, bound to the application's registry by Spring Boot's metrics
 * (as every {@code MeterBinder} bean is). An application that defines its own {@link LeaseholdMetrics}
 * bean (another lock-group function, say) keeps it.
 */
@AutoConfiguration(
        beforeName = "io.leasehold.lock.spring.boot.LeaseholdAutoConfiguration",
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration", // Boot
            // 4
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration" // Boot 3
        })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public class LeaseholdMetricsAutoConfiguration {

    /** The meters, recorded from the lock client's events once Spring Boot bound them to its registry. */
    @Bean
    @ConditionalOnMissingBean
    LeaseholdMetrics leaseholdMetrics() {
        return LeaseholdMetrics.builder().build();
    }
}
