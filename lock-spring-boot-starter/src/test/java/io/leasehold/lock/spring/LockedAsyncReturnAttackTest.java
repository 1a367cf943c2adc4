package io.leasehold.lock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.spring.boot.LeaseholdAutoConfiguration;
import io.leasehold.lock.spring.boot.LeaseholdLockedAutoConfiguration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Attack: a @Locked method that returns a CompletableFuture (the usual shape of async service code) is
 * "run under its lock" only until it returns the future: the lock is released while the work it
 * started is still running, so two calls do the work at the same time. Nothing refuses or warns.
 */
class LockedAsyncReturnAttackTest extends OnRealRedis {

    static class Reports {
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger maxRunning = new AtomicInteger();

        public int maxRunning() {
            return maxRunning.get();
        }

        @Locked(name = "report", waitTime = "10s")
        public CompletableFuture<String> build() {
            return CompletableFuture.supplyAsync(() -> {
                int now = running.incrementAndGet();
                maxRunning.accumulateAndGet(now, Math::max);
                String held = String.valueOf(server.command("EXISTS", "leasehold:{report}"));
                sleep(800);
                running.decrementAndGet();
                return "lock in Redis while the work ran: " + held;
            });
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Reports reports() {
            return new Reports();
        }
    }

    @Test
    void shouldRefuseALockedMethodThatReturnsBeforeItsWorkCompletes() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataRedisAutoConfiguration.class,
                        LeaseholdAutoConfiguration.class,
                        LeaseholdLockedAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
                .withUserConfiguration(Beans.class)
                .run(context -> {
                    Reports reports = context.getBean(Reports.class);

                    // (held only until the future was returned, two calls ran their work together)
                    assertThatThrownBy(reports::build)
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageStartingWith("@Locked on Reports.build() returns"
                                    + " java.util.concurrent.CompletableFuture: the lock would be released when the"
                                    + " method returns, before the work it started completes");
                    assertThat(reports.maxRunning()).as("nothing ran").isZero();
                });
    }
}
