package io.leasehold.lock.spring.boot;

import io.leasehold.lock.LockClient;
import java.time.Clock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The lock client's health indicator ({@link LeaseholdHealthIndicator}, contributor {@code leasehold}) in
 * an application with Spring Boot's health endpoint; {@code management.health.leasehold.enabled=false}
 * turns it off. Only for the auto-configured client: the indicator's details come from the client's
 * events, which an application's own client does not report to it.
 */
@AutoConfiguration(after = LeaseholdAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(ConnectionFactoryBackend.class)
@ConditionalOnEnabledHealthIndicator("leasehold")
public class LeaseholdHealthAutoConfiguration {

    /** Keeps the client's uncertain and lost leases for the indicator (a listener the client reports to). */
    @Bean
    @ConditionalOnMissingBean
    LeaseTroubles leaseholdLeaseTroubles() {
        return new LeaseTroubles(Clock.systemUTC());
    }

    @Bean
    @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
    HealthIndicator leaseholdHealthIndicator(LockClient client, LeaseTroubles troubles) {
        return new LeaseholdHealthIndicator(client, troubles);
    }
}
