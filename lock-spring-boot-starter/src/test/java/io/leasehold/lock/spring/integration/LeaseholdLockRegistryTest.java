package io.leasehold.lock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.leasehold.lock.spring.OnRealRedis;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LeaseholdLockRegistry} against what Spring Integration's own {@code RedisLockRegistryTests}
 * expect of a lock registry (a lock per key, reentrancy on the thread, {@code tryLock} with and without a
 * wait, waiting across registries, unlock by a non-owner refused, {@code executeLocked}, expiring unused
 * locks), on a real {@code redis-server} the test starts, with two clients as two processes would have.
 */
class LeaseholdLockRegistryTest extends OnRealRedis {

    private RedisClient redisClient;
    private LockClient clientA;
    private LockClient clientB;

    @BeforeEach
    void clients() {
        redisClient = RedisClient.create(redis.uri());
        clientA = LettuceLockBackend.lockClient(redisClient);
        clientB = LettuceLockBackend.lockClient(redisClient);
    }

    @AfterEach
    void close() {
        clientA.close();
        clientB.close();
        redisClient.shutdown();
    }

    private static boolean inRedis(String name) {
        return Long.valueOf(1).equals(server.command("EXISTS", "leasehold:{" + name + "}"));
    }

    @Test
    void shouldHoldTheLockInRedisFromLockToUnlock() {
        LeaseholdLockRegistry registry = new LeaseholdLockRegistry(clientA, "orders");
        Lock lock = registry.obtain("42");

        lock.lock();
        assertThat(inRedis("orders:42")).isTrue();
        lock.unlock();

        assertThat(inRedis("orders:42")).isFalse();
        assertThat(registry.obtain("42")).as("one lock per key").isSameAs(lock);
    }

    @Test
    void shouldBeReentrantOnTheThreadAndReleaseOnTheLastUnlock() throws Exception {
        Lock lock = new LeaseholdLockRegistry(clientA, "orders").obtain("42");

        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        lock.lockInterruptibly();
        lock.unlock();
        lock.unlock();
        assertThat(inRedis("orders:42")).as("held until the last unlock").isTrue();
        lock.unlock();

        assertThat(inRedis("orders:42")).isFalse();
    }

    @Test
    void shouldNotLetAnotherRegistryTakeAHeldLockUntilItIsUnlocked() throws Exception {
        Lock first = new LeaseholdLockRegistry(clientA, "orders").obtain("42");
        Lock second = new LeaseholdLockRegistry(clientB, "orders").obtain("42");
        first.lock();

        CompletableFuture<Boolean> tried = CompletableFuture.supplyAsync(second::tryLock);
        assertThat(tried.get(10, TimeUnit.SECONDS)).isFalse();

        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
            waiting.countDown();
            try {
                boolean got = second.tryLock(20, TimeUnit.SECONDS);
                if (got) {
                    second.unlock();
                }
                return got;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
        first.unlock();

        assertThat(waited.get(30, TimeUnit.SECONDS))
                .as("got it once the first unlocked")
                .isTrue();
    }

    @Test
    void shouldMakeThreadsOfOneRegistryTakeTurns() throws Exception {
        Lock lock = new LeaseholdLockRegistry(clientA, "orders").obtain("42");
        lock.lock();

        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(lock::tryLock);
        assertThat(other.get(10, TimeUnit.SECONDS))
                .as("another thread of the same process")
                .isFalse();
        lock.unlock();
    }

    @Test
    void shouldRefuseAnUnlockByAThreadThatDoesNotHoldTheLock() throws Exception {
        Lock lock = new LeaseholdLockRegistry(clientA, "orders").obtain("42");

        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("You do not own lock at orders:42");

        lock.lock();
        CompletableFuture<Void> byOther = CompletableFuture.runAsync(lock::unlock);
        assertThatThrownBy(() -> byOther.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThat(inRedis("orders:42")).as("still held").isTrue();
        lock.unlock();
    }

    @Test
    void shouldRunExecuteLockedUnderTheLock() throws Exception {
        LeaseholdLockRegistry registry = new LeaseholdLockRegistry(clientA, "orders");

        String seen = registry.executeLocked("42", () -> "held=" + inRedis("orders:42"));

        assertThat(seen).isEqualTo("held=true");
        assertThat(inRedis("orders:42")).isFalse();
    }

    @Test
    void shouldSetTheLeaseTimeItIsGiven() throws Exception {
        org.springframework.integration.support.locks.DistributedLock lock =
                new LeaseholdLockRegistry(clientA, "orders", Duration.ofSeconds(20)).obtain("42");

        lock.lock();
        assertThat(((Number) server.command("PTTL", "leasehold:{orders:42}")).longValue())
                .isBetween(1L, 20_000L);
        lock.unlock();

        assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(7))).isTrue();
        assertThat(((Number) server.command("PTTL", "leasehold:{orders:42}")).longValue())
                .isBetween(1L, 7_000L);
        lock.unlock();
    }

    @Test
    void shouldSayOnUnlockThatTheLockWasLostWhileHeld() throws Exception {
        Lock lock = new LeaseholdLockRegistry(clientA, "orders", Duration.ofMillis(300)).obtain("42");
        lock.lock();

        server.command("SET", "leasehold:{orders:42}", "another-owner:1"); // taken from under it
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (clientA.diagnostics().leases() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5); // the renewal, a third of the lease on, finds it another owner's
        }

        assertThatThrownBy(lock::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("The lock orders:42 was lost while held (STOLEN)");
        assertThatThrownBy(lock::unlock).as("no hold left").isInstanceOf(IllegalStateException.class);
        server.command("DEL", "leasehold:{orders:42}"); // the other owner is done
        assertThat(CompletableFuture.supplyAsync(lock::tryLock).get(10, TimeUnit.SECONDS))
                .as("the local lock was let go all the same: another thread gets it")
                .isTrue();
    }

    @Test
    void shouldForgetOnlyTheLocksNotHeld() {
        LeaseholdLockRegistry registry = new LeaseholdLockRegistry(clientA, "orders");
        Lock held = registry.obtain("1");
        Lock unused = registry.obtain("2");
        held.lock();

        registry.expireUnusedOlderThan(-1_000); // everything is older than a second in the future

        assertThat(registry.obtain("1")).as("held: kept").isSameAs(held);
        assertThat(registry.obtain("2")).as("unused: forgotten").isNotSameAs(unused);
        held.unlock();
    }

    @Test
    void shouldRefuseABlankRegistryKey() {
        assertThatThrownBy(() -> new LeaseholdLockRegistry(clientA, " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("registryKey must not be blank, but was ' '");
    }
}
