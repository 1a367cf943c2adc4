package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spring.OnRealRedis;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The auto-configuration in an application context as Spring Boot builds it (its own Redis
 * auto-configuration first), on a real standalone {@code redis-server} that the test starts, with each
 * of the two connection factories Boot offers ({@code spring.data.redis.client-type}).
 */
class LeaseholdAutoConfigurationTest extends OnRealRedis {

    private static ApplicationContextRunner app(String clientType) {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseholdAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.client-type=" + clientType);
    }

    private static long pttl(String key) {
        return ((Number) server.command("PTTL", key)).longValue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldLockInRedisThroughTheAutoConfiguredClient(String clientType) {
        app(clientType).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockClient.class);
            LockClient client = context.getBean(LockClient.class);

            Lease lease = client.lock("orders:42").acquire(Duration.ofSeconds(5));

            assertThat(server.command("GET", "leasehold:{orders:42}"))
                    .as("the lock's value in Redis")
                    .asString()
                    .endsWith(":" + lease.fencingToken());
            assertThat(lease.release()).isTrue();
            assertThat(server.command("EXISTS", "leasehold:{orders:42}")).isEqualTo(0L);
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldTakeTheKeyPrefixAndTheDefaultLeaseFromLeaseholdProperties(String clientType) {
        app(clientType)
                .withPropertyValues(
                        "leasehold.key-prefix=shop:", "leasehold.lease.time=7s", "leasehold.lease.auto-renew=false")
                .run(context -> {
                    Lease lease =
                            context.getBean(LockClient.class).lock("orders:42").acquire(Duration.ZERO);

                    long ttl = pttl("shop:{orders:42}");
                    assertThat(ttl).as("the lease time set on the key").isBetween(1L, 7_000L);
                    assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(7));
                    lease.release();
                });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldConnectWithTheApplicationsRedisSettings(String clientType) {
        app(clientType)
                .withPropertyValues("spring.data.redis.database=3", "spring.data.redis.client-name=shop-app")
                .run(context -> {
                    Lease lease =
                            context.getBean(LockClient.class).lock("orders:42").acquire(Duration.ZERO);

                    assertThat((String) server.command("INFO", "keyspace"))
                            .as("the lock in the application's database")
                            .contains("db3:keys=");
                    assertThat(server.command("EXISTS", "leasehold:{orders:42}"))
                            .as("nothing in database 0")
                            .isEqualTo(0L);
                    assertThat((String) server.command("CLIENT", "LIST"))
                            .as("the lock client's connections carry the application's client name")
                            .contains("name=shop-app");
                    lease.release();
                });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldReleaseHeldLeasesAndCloseItsConnectionsWhenTheContextCloses(String clientType) throws Exception {
        Lease[] held = new Lease[1];
        app(clientType)
                .withPropertyValues("spring.data.redis.client-name=shop-app")
                .run(context -> {
                    held[0] =
                            context.getBean(LockClient.class).lock("orders:42").acquire(Duration.ZERO);
                    assertThat(server.command("EXISTS", "leasehold:{orders:42}"))
                            .isEqualTo(1L);
                });

        LeaseLoss loss = held[0].lost().get(10, TimeUnit.SECONDS);
        assertThat(loss.reason()).isEqualTo(LeaseLoss.Reason.CLIENT_CLOSED);
        assertThat(server.command("EXISTS", "leasehold:{orders:42}"))
                .as("released when the context closed")
                .isEqualTo(0L);
        // (the server drops a closed connection from its list when it reads the close: a moment later)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (((String) server.command("CLIENT", "LIST")).contains("name=shop-app") && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat((String) server.command("CLIENT", "LIST"))
                .as("no connection of the application's is left open")
                .doesNotContain("name=shop-app");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldTellTheApplicationsListenerBeansOfLockEvents(String clientType) {
        app(clientType).withUserConfiguration(Listening.class).run(context -> {
            context.getBean(LockClient.class)
                    .lock("orders:42")
                    .acquire(Duration.ZERO)
                    .release();

            List<String> events = context.getBean(Listening.class).events;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (events.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(events).containsExactly("acquired orders:42", "released orders:42");
        });
    }

    @Test
    void shouldRefuseABadPropertyNamingIt() {
        app("lettuce")
                .withPropertyValues("leasehold.lease.time=10ms")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .hasStackTraceContaining(
                                "leasehold.lease.time: leaseTime must be at least PT0.05S, but was PT0.01S"));
    }

    @Test
    void shouldRefuseAMaxHoldTimeBelowTheLeaseTimeNamingIt() {
        app("lettuce")
                .withPropertyValues("leasehold.lease.time=30s", "leasehold.lease.max-hold-time=10s")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .hasStackTraceContaining(
                                "leasehold.lease.max-hold-time: maxHoldTime must be at least leaseTime (PT30S),"
                                        + " but was PT10S"));
    }

    @Test
    void shouldKeepTheApplicationsOwnLockClient() {
        app("lettuce").withUserConfiguration(OwnClient.class).run(context -> {
            assertThat(context).hasSingleBean(LockClient.class);
            assertThat(context.getBean(LockClient.class)).isSameAs(OwnClient.CLIENT);
            assertThat(context).doesNotHaveBean(ConnectionFactoryBackend.class);
        });
    }

    @Test
    void shouldRunOnTheApplicationsOwnLockBackend() {
        app("lettuce").withUserConfiguration(OwnBackend.class).run(context -> {
            Lease lease = context.getBean(LockClient.class).lock("orders:42").acquire(Duration.ZERO);

            assertThat(context.getBean(InMemoryLockBackend.class).exists("leasehold:{orders:42}"))
                    .as("the lock is in the application's backend")
                    .isTrue();
            assertThat(server.command("EXISTS", "leasehold:{orders:42}"))
                    .as("not in the connection factory's Redis")
                    .isEqualTo(0L);
            lease.release();
        });
    }

    @Test
    void shouldConfigureNothingWithoutARedisConnectionFactory() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockClient.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class Listening {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Bean
        LockEventListener recording() {
            return new LockEventListener() {
                @Override
                public void onAcquired(String lockName, long fencingToken, Duration waited) {
                    events.add("acquired " + lockName);
                }

                @Override
                public void onReleased(String lockName, long fencingToken, Duration held) {
                    events.add("released " + lockName);
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        static final LockClient CLIENT = LockClient.create(new InMemoryLockBackend());

        @Bean
        LockClient ownLockClient() {
            return CLIENT;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBackend {
        @Bean
        InMemoryLockBackend lockBackend() {
            return new InMemoryLockBackend();
        }
    }
}
