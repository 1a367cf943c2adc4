package io.leasehold.lock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLostException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.leasehold.lock.spring.boot.LeaseholdAutoConfiguration;
import io.leasehold.lock.spring.boot.LeaseholdLockedAutoConfiguration;
import io.leasehold.lock.testkit.driver.Eventually;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Attack on @Locked: exceptions, nesting of different locks, JDK proxies, SKIP against another client, interrupt flag. */
class LockedAttackTest extends OnRealRedis {

    static final class OddThrowable extends Throwable {
        OddThrowable() {
            super("odd");
        }
    }

    public interface Inventory {
        @Locked(name = "stock", key = "#sku")
        String restock(String sku, Inventory self);

        @Locked(name = "shelf", key = "#sku")
        String shelve(String sku);
    }

    static class DefaultInventory implements Inventory {
        @Override
        public String restock(String sku, Inventory self) {
            Lease outer = LockedLease.current();
            String inner = self.shelve(sku);
            return outer.lockName() + " > " + inner + " > back "
                    + LockedLease.current().lockName() + " held="
                    + server.command("EXISTS", "leasehold:{stock:" + sku + "}")
                    + server.command("EXISTS", "leasehold:{shelf:" + sku + "}");
        }

        @Override
        public String shelve(String sku) {
            return LockedLease.current().lockName();
        }
    }

    static class Thrower {
        final List<String> seen = new CopyOnWriteArrayList<>();

        @Locked(name = "t", key = "#kind")
        public void fail(String kind) throws Throwable {
            switch (kind) {
                case "checked" -> throw new IOException("checked");
                case "runtime" -> throw new IllegalStateException("runtime");
                case "error" -> throw new AssertionError("error");
                default -> throw new OddThrowable();
            }
        }

        @Locked(name = "busy", waitTime = "0s", onBusy = Locked.OnBusy.SKIP)
        public Optional<String> ifFree() {
            return Optional.of("ran");
        }

        @Locked(name = "fair", fair = true, waitTime = "5s")
        public String fairly() {
            return LockedLease.current().lockName();
        }

        @Locked(name = "lose", leaseTime = "300ms")
        public void untilInterrupted(CountDownLatch started) throws InterruptedException {
            started.countDown();
            new CountDownLatch(1).await();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Inventory inventory() {
            return new DefaultInventory();
        }

        @Bean
        Thrower thrower() {
            return new Thrower();
        }
    }

    private static ApplicationContextRunner app() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataRedisAutoConfiguration.class,
                        LeaseholdAutoConfiguration.class,
                        LeaseholdLockedAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
                .withUserConfiguration(Beans.class);
    }

    @Test
    void shouldNestADifferentLockOnAJdkProxyAndRestoreTheOuterLease() {
        app().run(context -> {
            Inventory inventory = context.getBean(Inventory.class);
            assertThat(AopUtils.isJdkDynamicProxy(inventory)).isTrue();
            assertThat(inventory.restock("a", inventory)).isEqualTo("stock:a > shelf:a > back stock:a held=10");
            assertThat(LockedLease.find()).isEmpty();
            assertThat(server.command("EXISTS", "leasehold:{stock:a}", "leasehold:{shelf:a}"))
                    .isEqualTo(0L);
        });
    }

    @Test
    void shouldPropagateEveryThrowableUnchangedAndRelease() {
        app().run(context -> {
            Thrower thrower = context.getBean(Thrower.class);
            assertThatThrownBy(() -> thrower.fail("checked")).isExactlyInstanceOf(IOException.class);
            assertThatThrownBy(() -> thrower.fail("runtime")).isExactlyInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> thrower.fail("error")).isExactlyInstanceOf(AssertionError.class);
            assertThatThrownBy(() -> thrower.fail("odd")).isExactlyInstanceOf(OddThrowable.class);
            assertThat(server.command(
                            "EXISTS",
                            "leasehold:{t:checked}",
                            "leasehold:{t:runtime}",
                            "leasehold:{t:error}",
                            "leasehold:{t:odd}"))
                    .as("every lock released")
                    .isEqualTo(0L);
            assertThat(LockedLease.find()).isEmpty();
        });
    }

    @Test
    void shouldSkipWhenAnotherClientHoldsTheLockAndRunFair() {
        RedisClient lettuce = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
        try (LockClient other = LettuceLockBackend.lockClient(lettuce)) {
            app().run(context -> {
                Thrower thrower = context.getBean(Thrower.class);
                Lease held = other.lock("busy").acquire(Duration.ZERO);
                assertThat(thrower.ifFree()).isEmpty();
                held.release();
                assertThat(thrower.ifFree()).contains("ran");

                Lease fairHeld = other.fairLock("fair").acquire(Duration.ZERO);
                CompletableFuture<String> waiting = CompletableFuture.supplyAsync(thrower::fairly);
                Eventually.until(
                        "the fair call waits in the lock's queue",
                        () -> Long.valueOf(1).equals(server.command("ZCARD", "leasehold:{fair}:queue")));
                assertThat(waiting).isNotDone();
                fairHeld.release();
                assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("fair");
            });
        } finally {
            lettuce.shutdown();
        }
    }

    @Test
    void shouldNotLeaveTheInterruptFlagAfterALostLease() {
        app().run(context -> {
            Thrower thrower = context.getBean(Thrower.class);
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> {
                try {
                    thrower.untilInterrupted(started);
                    return "returned";
                } catch (LeaseLostException lost) {
                    return "lost, interrupted after=" + Thread.currentThread().isInterrupted() + ", lease after="
                            + LockedLease.find().isPresent();
                } catch (Exception e) {
                    return "other " + e;
                }
            });
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            server.command("SET", "leasehold:{lose}", "another-owner:1");
            assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("lost, interrupted after=false, lease after=false");
        });
    }
}
