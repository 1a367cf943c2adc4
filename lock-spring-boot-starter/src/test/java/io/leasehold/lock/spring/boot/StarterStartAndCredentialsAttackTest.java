package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.spring.OnRealRedis;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Attack: failed starts leave nothing behind; ACL user and password reach the lock client's connections. */
class StarterStartAndCredentialsAttackTest extends OnRealRedis {

    @BeforeAll
    static void addUser() { // (after OnRealRedis started the server)
        server.command("ACL", "SETUSER", "locker", "on", ">s3cret", "~*", "&*", "+@all");
    }

    private static ApplicationContextRunner app(String clientType, int port, String name) {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseholdAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + port,
                        "spring.data.redis.client-type=" + clientType,
                        "spring.data.redis.client-name=" + name);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldLeaveNothingBehindAfterARefusedProperty(String clientType) throws Exception {
        long before = leaseholdThreads();
        String name = "badprop-" + clientType;
        app(clientType, redis.port(), name)
                .withPropertyValues("leasehold.lease.time=10ms")
                .run(context -> assertThat(context).hasFailed());
        assertThat(awaitAtMost(StarterStartAndCredentialsAttackTest::leaseholdThreads, before))
                .isLessThanOrEqualTo(before);
        assertThat(awaitAtMost(() -> connections(name), 0))
                .as("connections left")
                .isZero();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldLeaveNothingBehindWhenRedisIsUnreachable(String clientType) throws Exception {
        long before = leaseholdThreads();
        int deadPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            deadPort = socket.getLocalPort();
        }
        String[] state = new String[1];
        app(clientType, deadPort, "dead")
                .withPropertyValues("spring.data.redis.connect-timeout=500ms", "leasehold.close-timeout=1s")
                .run(context -> state[0] =
                        context.getStartupFailure() == null ? "started" : "failed: " + context.getStartupFailure());
        System.out.println(clientType + " with Redis unreachable: " + state[0]);
        assertThat(awaitAtMost(StarterStartAndCredentialsAttackTest::leaseholdThreads, before))
                .as("leasehold-* threads left")
                .isLessThanOrEqualTo(before);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldConnectAsTheApplicationsAclUser(String clientType) {
        String name = "acl-" + clientType;
        app(clientType, redis.port(), name)
                .withPropertyValues("spring.data.redis.username=locker", "spring.data.redis.password=s3cret")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Lease lease =
                            context.getBean(LockClient.class).lock("acl:1").acquire(Duration.ofSeconds(2));
                    String list = (String) server.command("CLIENT", "LIST");
                    list.lines().filter(l -> l.contains("name=" + name + " ")).forEach(System.out::println);
                    assertThat(list.lines()
                                    .filter(l -> l.contains("name=" + name + " "))
                                    .allMatch(l -> l.contains("user=locker")))
                            .isTrue();
                    lease.release();
                });
    }
}
