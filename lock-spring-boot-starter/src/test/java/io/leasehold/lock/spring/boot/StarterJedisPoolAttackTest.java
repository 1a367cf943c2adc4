package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.spring.OnRealRedis;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Attack: the Jedis backend needs two connections (one kept by its subscriber), and the starter's
 * javadoc says it takes "the factory's pool settings (at least 2 connections)". An application with
 * spring.data.redis.jedis.pool.max-active=1 (a valid Boot setting) should still get a working lock client.
 */
class StarterJedisPoolAttackTest extends OnRealRedis {

    @ParameterizedTest(name = "max-active={0}")
    @ValueSource(ints = {1, 2})
    void shouldLockWithASmallJedisPool(int maxActive) throws Exception {
        long threadsBefore = leaseholdThreads();
        String[] outcome = new String[1];
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseholdAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.client-type=jedis",
                        "spring.data.redis.jedis.pool.max-active=" + maxActive,
                        "leasehold.close-timeout=2s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockClient client = context.getBean(LockClient.class);
                    CompletableFuture<String> attempt = CompletableFuture.supplyAsync(() -> {
                        try {
                            Lease lease = client.lock("orders:1").acquire(Duration.ofSeconds(2));
                            lease.release();
                            return "acquired and released";
                        } catch (RuntimeException e) {
                            return "failed: " + e;
                        }
                    });
                    try {
                        outcome[0] = attempt.get(15, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.TimeoutException e) {
                        outcome[0] = "hung for 15 s";
                    }
                });
        assertThat(outcome[0])
                .as("lock/release with jedis max-active=" + maxActive)
                .isEqualTo("acquired and released");
        assertThat(awaitAtMost(OnRealRedis::leaseholdThreads, threadsBefore))
                .as("leasehold-* threads left after close")
                .isLessThanOrEqualTo(threadsBefore);
    }
}
