package io.leasehold.lock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.spring.boot.LeaseholdAutoConfiguration;
import io.leasehold.lock.spring.boot.LeaseholdLockedAutoConfiguration;
import io.leasehold.lock.testkit.driver.Eventually;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Attack: closing the context while @Locked methods run or wait, both client types. */
class StarterShutdownAttackTest extends OnRealRedis {

    static class Jobs {
        /** Keeps running 1.5 s after it is interrupted, as real work (a JDBC call) may. */
        @Locked(name = "jobs", key = "#id", leaseTime = "30s")
        public String runStubborn(String id, CountDownLatch started) {
            started.countDown(); // the method runs: its lease was handed to it
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            boolean interrupted = false;
            while (System.nanoTime() < end) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    interrupted = true;
                    end = Math.min(end, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500));
                }
            }
            return "done interrupted=" + interrupted;
        }

        @Locked(name = "jobs", key = "#id", waitTime = "30s")
        public String waitLong(String id) {
            return "ran";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    private static ApplicationContextRunner app(String clientType) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataRedisAutoConfiguration.class,
                        LeaseholdAutoConfiguration.class,
                        LeaseholdLockedAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.client-type=" + clientType,
                        "spring.data.redis.client-name=shutdown-app",
                        "leasehold.close-timeout=5s")
                .withUserConfiguration(Beans.class);
    }

    static long appConnections() {
        return connections("shutdown-app");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldReleaseTheLockOfAMethodStillRunningWhenTheContextCloses(String clientType) throws Exception {
        long threadsBefore = leaseholdThreads();
        CompletableFuture<Object>[] call = new CompletableFuture[1];
        long[] closeMillis = new long[1];
        app(clientType).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CountDownLatch started = new CountDownLatch(1);
            call[0] = CompletableFuture.supplyAsync(() -> {
                try {
                    return jobs.runStubborn("1", started);
                } catch (Throwable t) {
                    return t;
                }
            });
            // Not the key in Redis: it is there a moment before the client hands the lease to the method,
            // and a close in between ends the acquisition instead ("client must be open").
            assertThat(started.await(10, TimeUnit.SECONDS))
                    .as("the method runs, holding its lock")
                    .isTrue();
            long t0 = System.nanoTime();
            context.close();
            closeMillis[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        });
        System.out.println(clientType + ": close took " + closeMillis[0] + " ms");
        assertThat(server.command("EXISTS", "leasehold:{jobs:1}"))
                .as("released in Redis when the context closed, not left to its 30 s lease")
                .isEqualTo(0L);
        Object outcome = call[0].get(10, TimeUnit.SECONDS);
        System.out.println(clientType + ": the running method's caller got " + outcome);
        assertThat(outcome).as("caller told of the loss").isInstanceOf(io.leasehold.lock.LeaseLostException.class);
        assertThat(awaitAtMost(StarterShutdownAttackTest::leaseholdThreads, threadsBefore))
                .as("leasehold-* threads after close")
                .isLessThanOrEqualTo(threadsBefore);
        assertThat(awaitAtMost(StarterShutdownAttackTest::appConnections, 0))
                .as("connections after close")
                .isZero();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldEndAWaitingCallPromptlyWhenTheContextCloses(String clientType) throws Exception {
        long threadsBefore = leaseholdThreads();
        server.command("SET", "leasehold:{jobs:2}", "another-owner:1", "PX", "60000");
        CompletableFuture<Object>[] call = new CompletableFuture[1];
        app(clientType).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            call[0] = CompletableFuture.supplyAsync(() -> {
                try {
                    return jobs.waitLong("2");
                } catch (Throwable t) {
                    return t;
                }
            });
            LockClient client = context.getBean(LockClient.class);
            Eventually.until(
                    "the call waits for the lock", () -> client.diagnostics().acquisitions() == 1);
            assertThat(call[0]).isNotDone();
            context.close();
        });
        Object outcome = call[0].get(10, TimeUnit.SECONDS);
        System.out.println(clientType + ": the waiting caller got " + outcome);
        assertThat(outcome).isInstanceOf(RuntimeException.class);
        assertThat(awaitAtMost(StarterShutdownAttackTest::leaseholdThreads, threadsBefore))
                .as("leasehold-* threads after close")
                .isLessThanOrEqualTo(threadsBefore);
        assertThat(awaitAtMost(StarterShutdownAttackTest::appConnections, 0))
                .as("connections after close")
                .isZero();
    }
}
