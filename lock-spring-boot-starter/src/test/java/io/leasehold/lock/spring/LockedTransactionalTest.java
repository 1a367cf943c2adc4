package io.leasehold.lock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.spring.boot.LeaseholdAutoConfiguration;
import io.leasehold.lock.spring.boot.LeaseholdLockedAutoConfiguration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * A {@link Locked} method that is also {@code @Transactional}: the lock must be held from before the
 * transaction begins until after it committed (or rolled back), or another holder could read data that is
 * not committed yet: the classic bug of releasing the lock before the commit. A transaction manager of the
 * test's records, at each step of the transaction, whether the lock is in Redis.
 */
class LockedTransactionalTest extends OnRealRedis {

    private static final String KEY = "leasehold:{accounts:a1}";

    private static boolean lockInRedis() {
        return Long.valueOf(1).equals(server.command("EXISTS", KEY));
    }

    /** Records each step of its transactions with whether the lock was in Redis then. */
    static class RecordingTransactions extends AbstractPlatformTransactionManager {
        final List<String> steps = new CopyOnWriteArrayList<>();

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            steps.add("begin, locked=" + lockInRedis());
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            steps.add("commit, locked=" + lockInRedis());
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            steps.add("rollback, locked=" + lockInRedis());
        }
    }

    static class Accounts {
        @Locked(name = "accounts", key = "#id")
        @Transactional
        public void pay(String id, boolean fail) {
            if (fail) {
                throw new IllegalStateException("payment refused");
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TransactionsAtTheirDefaultOrder {
        @Bean
        RecordingTransactions transactionManager() {
            return new RecordingTransactions();
        }

        @Bean
        Accounts accounts() {
            return new Accounts();
        }
    }

    /** The wrong order, to show that the recording tells it: transactions outside the lock. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = Ordered.HIGHEST_PRECEDENCE)
    static class TransactionsOutsideTheLock {
        @Bean
        RecordingTransactions transactionManager() {
            return new RecordingTransactions();
        }

        @Bean
        Accounts accounts() {
            return new Accounts();
        }
    }

    private static ApplicationContextRunner app(Class<?> transactions) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataRedisAutoConfiguration.class,
                        LeaseholdAutoConfiguration.class,
                        LeaseholdLockedAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
                .withUserConfiguration(transactions);
    }

    @Test
    void shouldHoldTheLockFromBeforeTheTransactionBeginsUntilAfterItCommits() {
        app(TransactionsAtTheirDefaultOrder.class).run(context -> {
            context.getBean(Accounts.class).pay("a1", false);

            assertThat(context.getBean(RecordingTransactions.class).steps)
                    .containsExactly("begin, locked=true", "commit, locked=true");
            assertThat(lockInRedis()).as("released after the commit").isFalse();
        });
    }

    @Test
    void shouldHoldTheLockUntilAfterTheTransactionRolledBack() {
        app(TransactionsAtTheirDefaultOrder.class).run(context -> {
            assertThatThrownBy(() -> context.getBean(Accounts.class).pay("a1", true))
                    .hasMessage("payment refused");

            assertThat(context.getBean(RecordingTransactions.class).steps)
                    .containsExactly("begin, locked=true", "rollback, locked=true");
            assertThat(lockInRedis()).isFalse();
        });
    }

    @Test
    void shouldShowTheWrongOrderWhenTransactionsRunOutsideTheLock() {
        app(TransactionsOutsideTheLock.class).run(context -> {
            context.getBean(Accounts.class).pay("a1", false);

            assertThat(context.getBean(RecordingTransactions.class).steps)
                    .as("the recording catches a lock released before the commit")
                    .containsExactly("begin, locked=false", "commit, locked=false");
        });
    }
}
