package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.spring.OnRealRedis;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Attack: the health indicator on a real Redis that dies and comes back, and on one never reachable. */
class StarterHealthAttackTest extends OnRealRedis {

    private static ApplicationContextRunner app(String clientType, int port) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataRedisAutoConfiguration.class,
                        LeaseholdAutoConfiguration.class,
                        LeaseholdHealthAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + port,
                        "spring.data.redis.client-type=" + clientType,
                        "spring.data.redis.timeout=1s",
                        "spring.data.redis.connect-timeout=1s",
                        "leasehold.command-timeout=1s",
                        "leasehold.close-timeout=2s");
    }

    private static Health timed(HealthIndicator indicator, String label) {
        long t0 = System.nanoTime();
        Health health = indicator.health(true);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        System.out.println(label + ": " + health.getStatus() + " in " + ms + " ms " + health.getDetails());
        assertThat(ms).as(label + ": health check bounded").isLessThan(5_000);
        return health;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldGoDownWhenRedisDiesAndUpWhenItComesBack(String clientType) {
        app(clientType, redis.port()).run(context -> {
            HealthIndicator indicator = context.getBean("leaseholdHealthIndicator", HealthIndicator.class);
            assertThat(timed(indicator, clientType + " up").getStatus()).isEqualTo(Status.UP);
            server.kill();
            try {
                assertThat(timed(indicator, clientType + " killed").getStatus()).isEqualTo(Status.DOWN);
            } finally {
                server.restart();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            Status status = Status.DOWN;
            while (status != Status.UP && System.nanoTime() < deadline) {
                status = timed(indicator, clientType + " restarted").getStatus();
                Thread.sleep(200);
            }
            assertThat(status).as("UP again after Redis came back").isEqualTo(Status.UP);
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldBeDownWhenRedisWasNeverReachable(String clientType) throws Exception {
        int deadPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            deadPort = socket.getLocalPort();
        }
        app(clientType, deadPort).run(context -> {
            assertThat(context).hasNotFailed();
            HealthIndicator indicator = context.getBean("leaseholdHealthIndicator", HealthIndicator.class);
            assertThat(timed(indicator, clientType + " never reachable").getStatus())
                    .isEqualTo(Status.DOWN);
        });
    }
}
