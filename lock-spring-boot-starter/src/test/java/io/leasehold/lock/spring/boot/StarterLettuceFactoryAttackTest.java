package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.spring.OnRealRedis;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Attack: Lettuce factories with early start-up off, no shared native connection, pooling. */
class StarterLettuceFactoryAttackTest extends OnRealRedis {

    @Configuration(proxyBeanMethods = false)
    static class OwnFactory {
        @Bean
        LettuceConnectionFactory redisConnectionFactory() {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration(redis.host(), redis.port()),
                    LettuceClientConfiguration.builder()
                            .clientName("own-factory")
                            .build());
            factory.setEarlyStartup(false);
            return factory;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NotSharedFactory {
        @Bean
        LettuceConnectionFactory redisConnectionFactory() {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration(redis.host(), redis.port()),
                    LettuceClientConfiguration.builder()
                            .clientName("not-shared")
                            .build());
            factory.setShareNativeConnection(false);
            return factory;
        }
    }

    @Test
    void shouldRunOnAFactoryThatSharesNoNativeConnection() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseholdAutoConfiguration.class))
                .withUserConfiguration(NotSharedFactory.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(LockClient.class)
                            .lock("ns:1")
                            .acquire(Duration.ofSeconds(2))
                            .release();
                });
    }

    @Test
    void shouldRunOnAFactoryWithEarlyStartupOff() throws Exception {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseholdAutoConfiguration.class))
                .withUserConfiguration(OwnFactory.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Lease lease =
                            context.getBean(LockClient.class).lock("own:1").acquire(Duration.ofSeconds(2));
                    assertThat(server.command("EXISTS", "leasehold:{own:1}")).isEqualTo(1L);
                    lease.release();
                    context.getBean(LockClient.class).lock("own:2").acquire(Duration.ofSeconds(2));
                });
        assertThat(server.command("EXISTS", "leasehold:{own:2}"))
                .as("released at close")
                .isEqualTo(0L);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (connections("own-factory") > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(connections("own-factory")).isZero();
    }

    @ParameterizedTest(name = "pool enabled={0}")
    @ValueSource(booleans = {true, false})
    void shouldRunWithLettucePooling(boolean pooled) {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseholdAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.client-type=lettuce",
                        "spring.data.redis.lettuce.pool.enabled=" + pooled,
                        "spring.data.redis.lettuce.pool.max-active=1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(LockClient.class)
                            .lock("pool:1")
                            .acquire(Duration.ofSeconds(2))
                            .release();
                });
    }
}
