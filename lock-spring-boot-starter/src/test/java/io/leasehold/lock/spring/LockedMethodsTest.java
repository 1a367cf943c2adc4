package io.leasehold.lock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLostException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.spring.boot.LeaseholdAutoConfiguration;
import io.leasehold.lock.spring.boot.LeaseholdLockedAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link Locked} methods of a bean in an application context as Spring Boot builds it, on a real
 * {@code redis-server} that the test starts: the lock's name from the arguments, waiting, skipping, the
 * lease in the method, a lost lease interrupting it, and the refusals of what cannot be read.
 */
class LockedMethodsTest extends OnRealRedis {

    private static ApplicationContextRunner app() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataRedisAutoConfiguration.class,
                        LeaseholdAutoConfiguration.class,
                        LeaseholdLockedAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
                .withUserConfiguration(Beans.class);
    }

    record Order(String id) {}

    /** A bean with locked methods; what each saw is recorded. */
    static class Orders {
        private final List<String> ran = new CopyOnWriteArrayList<>();

        /** What the methods saw (a method: the bean is called through its proxy, whose own fields are unset). */
        public List<String> ran() {
            return ran;
        }

        @Locked(name = "orders", key = "#order.id")
        public String ship(Order order) {
            Lease lease = LockedLease.current();
            ran.add(lease.lockName() + " held=" + (server.command("EXISTS", "leasehold:{" + lease.lockName() + "}")));
            return lease.lockName() + "@" + lease.fencingToken();
        }

        @Locked(name = "orders", key = "#p0", waitTime = "0s", onBusy = Locked.OnBusy.SKIP)
        public Optional<String> shipIfFree(String id) {
            ran.add("shipIfFree " + id);
            return Optional.of("shipped " + id);
        }

        @Locked(name = "jobs:${shop.job:nightly}", waitTime = "0s", onBusy = Locked.OnBusy.SKIP)
        public void nightlyJob() {
            ran.add("job " + LockedLease.current().lockName());
        }

        @Locked(name = "orders", key = "#id", waitTime = "200ms")
        public void shipWithin200ms(String id) {
            ran.add("shipWithin200ms " + id);
        }

        @Locked(name = "orders", key = "#id")
        public String outer(String id, Orders self) {
            return self.inner(id, LockedLease.current());
        }

        @Locked(name = "orders", key = "#id")
        public String inner(String id, Lease outer) {
            return LockedLease.current() == outer ? "reused the outer lease" : "took another lease";
        }

        @Locked(name = "orders", key = "#id", leaseTime = "300ms")
        public void workUntilInterrupted(String id, CountDownLatch started) throws InterruptedException {
            started.countDown();
            new CountDownLatch(1).await(); // only a loss of the lock ends this
        }

        @Locked(name = "orders", key = "#id")
        public void keyed(String id) {}

        @Locked(name = "orders", waitTime = "5 sec")
        public void unreadableWait() {}

        @Locked(name = "counters", onBusy = Locked.OnBusy.SKIP)
        public int skippedCount() {
            return 1;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    @Test
    void shouldRunTheMethodUnderTheLockNamedByItsArgumentsAndReleaseIt() {
        app().run(context -> {
            Orders orders = context.getBean(Orders.class);

            String shipped = orders.ship(new Order("42"));

            assertThat(orders.ran()).containsExactly("orders:42 held=1");
            assertThat(shipped).startsWith("orders:42@");
            assertThat(server.command("EXISTS", "leasehold:{orders:42}"))
                    .as("released on return")
                    .isEqualTo(0L);
        });
    }

    @Test
    void shouldSkipTheMethodWhenTheLockIsBusyAndSaidSo() {
        app().run(context -> {
            Orders orders = context.getBean(Orders.class);
            Lease other = context.getBean(LockClient.class).lock("orders:7").acquire(Duration.ZERO);

            assertThat(orders.shipIfFree("7")).isEmpty();
            assertThat(orders.ran()).as("the method did not run").isEmpty();

            other.release();
            assertThat(orders.shipIfFree("7")).contains("shipped 7");
        });
    }

    @Test
    void shouldResolvePlaceholdersInTheLocksName() {
        app().withPropertyValues("shop.job=inventory").run(context -> {
            Orders orders = context.getBean(Orders.class);

            orders.nightlyJob();

            assertThat(orders.ran()).containsExactly("job jobs:inventory");
        });
    }

    @Test
    void shouldThrowWhenTheLockStaysBusyForTheWholeWait() {
        app().run(context -> {
            Orders orders = context.getBean(Orders.class);
            Lease other = context.getBean(LockClient.class).lock("orders:9").acquire(Duration.ZERO);

            assertThatThrownBy(() -> orders.shipWithin200ms("9")).isInstanceOf(LockTimeoutException.class);
            assertThat(orders.ran()).isEmpty();
            other.release();
        });
    }

    @Test
    void shouldRunANestedLockedMethodOfTheSameLockUnderTheOuterLease() {
        app().run(context -> {
            Orders orders = context.getBean(Orders.class);

            assertThat(orders.outer("5", orders)).isEqualTo("reused the outer lease");
        });
    }

    @Test
    void shouldInterruptTheMethodAndThrowLeaseLostWhenTheLockIsTakenFromIt() {
        app().run(context -> {
            Orders orders = context.getBean(Orders.class);
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<Void> call =
                    CompletableFuture.runAsync(() -> uncheck(() -> orders.workUntilInterrupted("3", started)));
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

            server.command("SET", "leasehold:{orders:3}", "another-owner:1"); // taken from under it

            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LeaseLostException.class);
        });
    }

    @Test
    void shouldRefuseAKeyThatIsNull() {
        app().run(context -> assertThatThrownBy(
                        () -> context.getBean(Orders.class).keyed(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("@Locked(key = \"#id\") on Orders.keyed() must not be null, but was null for the lock"
                        + " 'orders'"));
    }

    @Test
    void shouldRefuseAnUnreadableDurationNamingTheMethodAndTheAttribute() {
        app().run(context -> assertThatThrownBy(
                        () -> context.getBean(Orders.class).unreadableWait())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("@Locked(waitTime = \"5 sec\") on Orders.unreadableWait() must be a duration such as 500ms,"
                        + " 5s or PT5S"));
    }

    @Test
    void shouldRefuseSkippingAMethodThatReturnsAPrimitive() {
        app().run(context -> assertThatThrownBy(
                        () -> context.getBean(Orders.class).skippedCount())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("@Locked(onBusy = \"SKIP\") on Orders.skippedCount() is not for a method that"
                        + " returns int"));
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static void uncheck(ThrowingRunnable body) {
        try {
            body.run();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }
}
