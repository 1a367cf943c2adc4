package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A context that is stopped and started again ({@code ConfigurableApplicationContext#stop()} and
 * {@code start()}, as a CRaC checkpoint and restore does): the stop releases the leases held, and the
 * same {@link LockClient} bean locks again once the context runs again (on Lettuce over the connection
 * factory's new client). Found by an attack on the starter: the client stayed closed for good.
 */
class LeaseholdContextRestartTest {

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
    void shouldReleaseAtStopAndLockAgainAfterTheContextStartsAgain(String clientType) {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseholdAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.client-type=" + clientType)
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    Lease held = client.lock("restart:1").acquire(Duration.ZERO);

                    context.getSourceApplicationContext().stop();

                    assertThat(held.lost().get(10, TimeUnit.SECONDS).reason())
                            .isEqualTo(LeaseLoss.Reason.CLIENT_CLOSED);
                    assertThat(redis.server().command("EXISTS", "leasehold:{restart:1}"))
                            .as("released in Redis at the stop")
                            .isEqualTo(0L);
                    assertThat(client.isClosed()).isTrue();
                    assertThatThrownBy(() -> client.lock("restart:1"))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage("the Leasehold lock client is stopped with its context; it starts again with"
                                    + " the context");

                    context.getSourceApplicationContext().start();

                    assertThat(client.isClosed()).isFalse();
                    Lease again = client.lock("restart:1").acquire(Duration.ZERO);
                    assertThat(redis.server().command("EXISTS", "leasehold:{restart:1}"))
                            .isEqualTo(1L);
                    assertThat(again.release()).isTrue();
                });
    }
}
