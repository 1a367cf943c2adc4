package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.SentinelRedis;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Attack: Sentinel with an ACL user on the Sentinels, a database and a client name. */
class StarterSentinelCredentialsAttackTest {

    private static SentinelRedis sentinel;

    @BeforeAll
    static void start() {
        sentinel = RedisFixtures.startSentinel();
        for (RedisNode s : sentinel.sentinels()) {
            s.command("ACL", "SETUSER", "sentuser", "on", ">sentpw", "allcommands", "allchannels");
        }
    }

    @AfterAll
    static void stop() {
        sentinel.close();
    }

    private static String nodes(List<RedisEndpoint> endpoints) {
        return endpoints.stream().map(e -> e.host() + ":" + e.port()).collect(Collectors.joining(","));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldLockThroughSentinelsThatWantAUser(String clientType) {
        String name = "sent-" + clientType;
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseholdAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.client-type=" + clientType,
                        "spring.data.redis.sentinel.master=" + sentinel.masterName(),
                        "spring.data.redis.sentinel.nodes=" + nodes(sentinel.sentinelEndpoints()),
                        "spring.data.redis.sentinel.username=sentuser",
                        "spring.data.redis.sentinel.password=sentpw",
                        "spring.data.redis.database=2",
                        "spring.data.redis.client-name=" + name)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Lease lease = context.getBean(LockClient.class)
                            .lock("s:" + clientType)
                            .acquire(Duration.ofSeconds(5));
                    RedisNode master = sentinel.master();
                    assertThat((String) master.command("INFO", "keyspace")).contains("db2:keys=");
                    String masterClients = (String) master.command("CLIENT", "LIST");
                    assertThat(masterClients).contains("name=" + name);
                    StringBuilder sentinelClients = new StringBuilder();
                    for (RedisNode s : sentinel.sentinels()) {
                        sentinelClients.append(s.command("CLIENT", "LIST"));
                    }
                    System.out.println(clientType + " sentinel clients:\n" + sentinelClients);
                    lease.release();
                });
    }
}
