package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code leasehold} health indicator, on an in-memory backend whose faults the test turns on and off:
 * {@code UP} while Redis answers, {@code DOWN} when it does not, and the details of leases that went
 * uncertain or were lost, which the status does not show.
 */
class LeaseholdHealthIndicatorTest {

    private static ApplicationContextRunner app() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataRedisAutoConfiguration.class,
                        LeaseholdAutoConfiguration.class,
                        LeaseholdHealthAutoConfiguration.class))
                .withUserConfiguration(InMemory.class);
    }

    private static Health health(org.springframework.context.ApplicationContext context) {
        return context.getBean("leaseholdHealthIndicator", HealthIndicator.class)
                .health(true);
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline)
                    .as("timed out waiting until " + what)
                    .isNegative();
            Thread.sleep(5);
        }
    }

    @Test
    void shouldBeUpWhileRedisAnswersAndDownWhenItDoesNot() {
        app().run(context -> {
            assertThat(health(context).getStatus()).isEqualTo(Status.UP);

            context.getBean(InMemoryLockBackend.class).makeUnavailable();
            Health down = health(context);
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsKey("error");

            context.getBean(InMemoryLockBackend.class).makeAvailable();
            assertThat(health(context).getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldTellOfALeaseLostRecentlyWhileStayingUp() {
        app().run(context -> {
            InMemoryLockBackend redis = context.getBean(InMemoryLockBackend.class);
            Lease lease = context.getBean(LockClient.class)
                    .lock(
                            "orders:42",
                            LockOptions.builder()
                                    .leaseTime(Duration.ofMillis(300))
                                    .build())
                    .acquire(Duration.ZERO);

            redis.writeKey("leasehold:{orders:42}", "another-owner:1"); // taken from under it
            assertThat(lease.lost().get(10, TimeUnit.SECONDS).reason()).isEqualTo(LeaseLoss.Reason.STOLEN);
            eventually(
                    "the loss reached the indicator",
                    () -> (int) health(context).getDetails().get("lostLeases") == 1);

            Health health = health(context);
            assertThat(health.getStatus())
                    .as("a lost lease is no fault of the service")
                    .isEqualTo(Status.UP);
            assertThat((Map<Object, Object>) health.getDetails().get("lastLoss"))
                    .containsEntry("lock", "orders:42")
                    .containsEntry("reason", LeaseLoss.Reason.STOLEN);
        });
    }

    @Test
    void shouldCountALeaseUncertainUntilARenewalGetsThrough() {
        app().run(context -> {
            InMemoryLockBackend redis = context.getBean(InMemoryLockBackend.class);
            // renewed every 2 s; once a renewal fails, the lease stays valid (uncertain) for 4 s more
            Lease lease = context.getBean(LockClient.class)
                    .lock(
                            "orders:42",
                            LockOptions.builder()
                                    .leaseTime(Duration.ofSeconds(6))
                                    .build())
                    .acquire(Duration.ZERO);

            redis.makeUnavailable();
            eventually("the lease went uncertain", () -> lease.state() == LeaseState.UNCERTAIN);
            eventually(
                    "the indicator counts it",
                    () -> (int) health(context).getDetails().get("uncertainLeases") == 1);

            redis.makeAvailable();
            eventually("a renewal got through", () -> lease.state() == LeaseState.HELD);
            eventually(
                    "the indicator no longer counts it",
                    () -> (int) health(context).getDetails().get("uncertainLeases") == 0);
            assertThat(lease.lost()).isNotDone();
            lease.release();
        });
    }

    @Test
    void shouldBeOffWhenTheApplicationTurnsItOff() {
        app().withPropertyValues("management.health.leasehold.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("leaseholdHealthIndicator"));
    }

    @Configuration(proxyBeanMethods = false)
    static class InMemory {
        @Bean
        InMemoryLockBackend lockBackend() {
            return new InMemoryLockBackend();
        }
    }
}
