package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Attack: LockClientLifecycle closes the client for good in stop(), but a SmartLifecycle may be started
 * again (ConfigurableApplicationContext#stop()/start(), CRaC checkpoint/restore in Boot 3.2+). The
 * connection factory comes back after a restart (Spring Data Redis re-creates its client); the lock client
 * does not, while the lifecycle bean reports itself running again.
 */
class StarterLifecycleRestartAttackTest {

    private static StandaloneRedis redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisFixtures.startStandalone();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldLockAgainAfterTheContextIsStoppedAndStartedAgain(String clientType) {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseholdAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.client-type=" + clientType)
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    client.lock("restart:1").acquire(Duration.ZERO).release();

                    context.getSourceApplicationContext().stop();
                    context.getSourceApplicationContext().start();

                    StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
                    template.opsForValue().set("restart:probe", "1");
                    assertThat(template.opsForValue().get("restart:probe"))
                            .as("the connection factory works after the restart")
                            .isEqualTo("1");
                    assertThat(context.getBean(LockClientLifecycle.class).isRunning())
                            .as("the lifecycle says it runs")
                            .isTrue();
                    assertThat(client.isClosed())
                            .as("the LockClient bean after stop()/start() of the context")
                            .isFalse();
                });
    }
}
