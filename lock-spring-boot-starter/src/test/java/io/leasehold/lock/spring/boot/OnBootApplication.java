package io.leasehold.lock.spring.boot;

import static io.leasehold.lock.spring.OnRealRedis.awaitAtMost;
import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockClientDiagnostics;
import io.leasehold.lock.spring.boot.shop.ShopApplication;
import io.leasehold.lock.spring.boot.shop.Stock;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.RedisTopology;
import io.leasehold.lock.testkit.redis.SentinelRedis;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.test.annotation.DirtiesContext.HierarchyMode;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.TestContextManager;

/**
 * A Spring Boot application ({@link ShopApplication}: a {@code @Locked} service) booted by
 * {@code @SpringBootTest} on real Redis servers, as a user's application boots: one subclass per connection
 * factory (Lettuce, Jedis) and topology (standalone, Sentinel, Cluster), whose {@code @DynamicPropertySource}
 * points {@code spring.data.redis.*} at the servers.
 *
 * <p>The servers are the JVM's shared ones ({@link RedisFixtures#sharedStandalone()},
 * {@code sharedSentinel()}, {@code sharedCluster()}: each started once, on first use, for every test class of
 * the JVM, {@link LeaseholdTopologiesTest} too), emptied before each test. A subclass's tests share its
 * application (Spring's test framework caches it); the last test closes it.
 */
@SpringBootTest(classes = ShopApplication.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class OnBootApplication {

    /** The Redis deployments a subclass boots the application on. */
    enum Topology {
        STANDALONE(RedisFixtures::sharedStandalone),
        SENTINEL(RedisFixtures::sharedSentinel),
        CLUSTER(RedisFixtures::sharedCluster);

        private final Supplier<RedisTopology> shared;

        Topology(Supplier<RedisTopology> shared) {
            this.shared = shared;
        }

        /** The JVM's shared deployment of this kind, started on first use. */
        RedisTopology redis() {
            return shared.get();
        }
    }

    /**
     * Points {@code spring.data.redis.*} at {@code topology}'s shared servers (started when the context
     * is, not before), with the connection factory of {@code clientType}.
     */
    static void redisProperties(DynamicPropertyRegistry registry, Topology topology, String clientType) {
        registry.add("spring.data.redis.client-type", () -> clientType);
        switch (topology) {
            case STANDALONE -> {
                registry.add("spring.data.redis.host", () -> endpoint(topology).host());
                registry.add("spring.data.redis.port", () -> endpoint(topology).port());
            }
            case SENTINEL -> {
                registry.add("spring.data.redis.sentinel.master", () -> SentinelRedis.MASTER_NAME);
                registry.add(
                        "spring.data.redis.sentinel.nodes",
                        () -> nodes(topology.redis().clientEndpoints()));
            }
            case CLUSTER ->
                registry.add(
                        "spring.data.redis.cluster.nodes",
                        () -> nodes(topology.redis().clientEndpoints()));
        }
    }

    private static RedisEndpoint endpoint(Topology topology) {
        return topology.redis().clientEndpoints().get(0);
    }

    private static String nodes(List<RedisEndpoint> endpoints) {
        return endpoints.stream().map(e -> e.host() + ":" + e.port()).collect(Collectors.joining(","));
    }

    private final Topology topology;
    private final String clientType;
    private final ExecutorService callers = Executors.newFixedThreadPool(2);

    @Autowired
    private ConfigurableApplicationContext context;

    @Autowired
    private LockClient locks;

    @Autowired
    private Stock stock;

    OnBootApplication(Topology topology, String clientType) {
        this.topology = topology;
        this.clientType = clientType;
    }

    @BeforeEach
    void emptyRedis() {
        topology.redis().flushAll();
    }

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    @Test
    @Order(1)
    void shouldRunOnTheAutoConfiguredClientOverTheConnectionFactoryOfItsClientType() {
        assertThat(context.getBeanNamesForType(LockClient.class)).containsExactly("leaseholdLockClient");
        assertThat(locks).isInstanceOf(LeaseholdLockClient.class);
        assertThat(context.getBeanFactory()
                        .getBeanDefinition("leaseholdLockClient")
                        .getFactoryBeanName())
                .as("the lock client's factory")
                .isEqualTo(LeaseholdAutoConfiguration.class.getName());
        assertThat(context.getBean(RedisConnectionFactory.class))
                .isInstanceOf(
                        clientType.equals("jedis") ? JedisConnectionFactory.class : LettuceConnectionFactory.class);
        assertThat(AopUtils.isAopProxy(stock))
                .as("the @Locked service is proxied")
                .isTrue();
    }

    @Test
    @Order(2)
    void shouldLetOneCallAtATimeIntoTheLockedMethodUnderALockOnTheMasterOfItsKey() throws Exception {
        String key = "leasehold:{stock:sneakers}";
        RedisNode master = topology.redis().masterForKey(key);
        Stock.Visit first = new Stock.Visit();
        Stock.Visit second = new Stock.Visit();

        Future<Long> firstCall = callers.submit(() -> stock.take("sneakers", first));
        long firstToken = first.entered().get(10, TimeUnit.SECONDS);
        assertThat(master.command("GET", key))
                .as("the lock's value on the master that serves its key")
                .asString()
                .endsWith(":" + firstToken);

        Future<Long> secondCall = callers.submit(() -> stock.take("sneakers", second));
        assertThat(awaitAtMost(() -> waitsForALock() ? 0 : 1, 0))
                .as("the second call waits for the lock: " + locks.diagnostics())
                .isZero();
        assertThat(second.entered())
                .as("the second call while the first is inside")
                .isNotDone();

        first.leave();
        assertThat(firstCall.get(10, TimeUnit.SECONDS)).isEqualTo(firstToken);
        long secondToken = second.entered().get(10, TimeUnit.SECONDS);
        second.leave();
        assertThat(secondCall.get(10, TimeUnit.SECONDS)).isEqualTo(secondToken);

        assertThat(stock.mostInside()).as("the most calls inside at once").isEqualTo(1);
        assertThat(secondToken).as("the second call's fencing token").isGreaterThan(firstToken);
        assertThat(master.command("EXISTS", key)).as("released on return").isEqualTo(0L);
    }

    /** Whether one call of this client waits for a lock: in its acquire, in the queue of a lock name. */
    private boolean waitsForALock() {
        LockClientDiagnostics now = locks.diagnostics();
        return now.acquisitions() == 1 && now.waitedNames() == 1;
    }

    @Test
    @Order(Integer.MAX_VALUE) // the last: it closes the context
    void shouldReleaseItsLeasesAndEndItsThreadsWhenTheContextCloses() throws InterruptedException {
        String key = "leasehold:{stock:boots}";
        RedisNode master = topology.redis().masterForKey(key);
        Lease held = locks.lock("stock:boots").acquire(Duration.ofSeconds(5));
        assertThat(master.command("GET", key)).asString().endsWith(":" + held.fencingToken());
        Set<Thread> threads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("leasehold-"))
                .collect(Collectors.toSet());
        assertThat(threads).as("the lock client's threads").isNotEmpty();

        closeTheApplication();

        assertThat(context.isActive()).as("the application is closed").isFalse();
        assertThat(locks.isClosed()).isTrue();
        assertThat(master.command("EXISTS", key))
                .as("the held lock, released by the close")
                .isEqualTo(0L);
        assertThat(topology.redis().masters().stream()
                        .flatMap(m -> ((List<?>) m.command("KEYS", "leasehold:*")).stream())
                        .map(String::valueOf))
                .as("Leasehold's keys left in Redis: the fencing counter, which outlives the lock")
                .containsExactly(key + ":fence");
        assertThat(awaitAtMost(() -> threads.stream().filter(Thread::isAlive).count(), 0))
                .as("threads of Leasehold's left after the close: " + threads)
                .isZero();
    }

    /**
     * Closes the application as Spring's test framework closes a context marked dirty: it also drops the
     * context from its cache (a context closed behind the cache's back would be "restarted" after the test).
     */
    private void closeTheApplication() {
        new TestContextManager(getClass()).getTestContext().markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
    }
}
