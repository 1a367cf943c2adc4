package io.leasehold.lock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.spring.boot.LeaseholdAutoConfiguration;
import io.leasehold.lock.spring.boot.LeaseholdLockedAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @Locked(minHoldTime)} for a job that every node runs on the same schedule (ShedLock's
 * {@code lockAtLeastFor}): two application contexts on one real {@code redis-server} stand for two nodes.
 */
class LockedMinHoldTest extends OnRealRedis {

    private static final String KEY = "leasehold:{jobs:report}";

    private static ApplicationContextRunner node() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataRedisAutoConfiguration.class,
                        LeaseholdAutoConfiguration.class,
                        LeaseholdLockedAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
                .withUserConfiguration(Beans.class);
    }

    /** A scheduled job's bean; what ran is recorded. */
    static class Report {
        private final List<Long> ran = new CopyOnWriteArrayList<>();

        /** The fencing tokens of the runs (a method: the bean is called through its proxy). */
        public List<Long> ran() {
            return ran;
        }

        @Locked(name = "jobs:report", waitTime = "0s", onBusy = Locked.OnBusy.SKIP, minHoldTime = "${report.hold:3s}")
        public void run() {
            ran.add(LockedLease.current().fencingToken()); // a job that ends at once
        }

        @Locked(name = "jobs:broken", leaseTime = "10s", minHoldTime = "-1s")
        public void negativeHold() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Report report() {
            return new Report();
        }
    }

    @Test
    void shouldSkipTheJobOnAnotherNodeUntilTheMinHoldTimeIsUpThoughTheFirstRunEndedAtOnce() {
        node().run(first -> node().run(second -> {
            Report a = report(first);
            Report b = report(second);
            long start = System.nanoTime();

            a.run();
            Long ttl = (Long) server.command("PTTL", KEY);
            b.run();

            assertThat(a.ran()).as("runs on the first node").hasSize(1);
            assertThat(ttl)
                    .as("the lock's TTL in Redis once the first run returned")
                    .isPositive()
                    .isLessThanOrEqualTo(3_000);
            assertThat(b.ran())
                    .as("runs on the second node while the min-hold time lasts")
                    .isEmpty();

            assertThat(awaitAtMost(() -> (Long) server.command("EXISTS", KEY), 0))
                    .as("the lock in Redis once the min-hold time is up")
                    .isZero();
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("time until the lock was free again")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(2_975));
            b.run();
            assertThat(b.ran())
                    .as("runs on the second node once the min-hold time is up")
                    .hasSize(1)
                    .allSatisfy(token -> assertThat(token).isGreaterThan(a.ran().get(0)));
        }));
    }

    @Test
    void shouldRefuseANegativeMinHoldTimeNamingTheMethodAndTheAttribute() {
        node().run(context -> assertThatThrownBy(() -> report(context).negativeHold())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("@Locked(leaseTime, minHoldTime)")
                .hasMessageContaining("Report.negativeHold()")
                .hasMessageContaining("minHoldTime must not be negative")
                .hasMessageContaining("PT-1S")
                .hasMessageContaining("jobs:broken"));
        assertThat(server.command("EXISTS", "leasehold:{jobs:broken}")).isEqualTo(0L);
    }

    private static Report report(ConfigurableApplicationContext context) {
        return context.getBean(Report.class);
    }
}
