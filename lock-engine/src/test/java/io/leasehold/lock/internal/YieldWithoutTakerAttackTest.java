package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.RepeatedTest;

/**
 * The other client's waiter gives up just before the 8th local handoff in a row: its clean-up takes
 * its place out of the lock's wait queue in Redis, so that handoff finds nobody ahead of the local
 * waiter and grants it (no yield to a waiter that is gone). The local waiters go on without the
 * engine's clock moving, with rising tokens, and the lock is not left held.
 */
class YieldWithoutTakerAttackTest extends HandoffAttackSupport {

    private static final LockOptions NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();

    @RepeatedTest(3)
    void shouldNotYieldToAnotherClientsWaiterThatGaveUp() throws Exception {
        String name = "yield:nobody-takes";
        LockClientPair pair = new LockClientPair();
        Lease held = pair.local.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> othersWaiter = pair.other.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        Eventually.until("the other client's waiter queued", () -> redis.subscriberCount(channel(name)) == 1);
        List<String> othersPlace = redis.sortedSetMembers(queueKey(name));
        assertEquals(1, othersPlace.size(), "the other client's waiter has a place in Redis's queue: " + othersPlace);
        List<CompletableFuture<Lease>> local = new ArrayList<>();
        AtomicLong lastToken = new AtomicLong(held.fencingToken());
        List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int i = 0; i < 12; i++) {
            local.add(pair.local
                    .lock(name, NO_RENEW)
                    .acquireAsync(Duration.ofSeconds(60))
                    .thenApply(lease -> {
                        if (lease.fencingToken() <= lastToken.getAndSet(lease.fencingToken())) {
                            violations.add("token did not rise: " + lease.fencingToken());
                        }
                        lease.release();
                        return lease;
                    }));
        }
        Eventually.until("both clients subscribed", () -> redis.subscriberCount(channel(name)) == 2);
        othersWaiter.cancel(false);
        Eventually.until(
                "the cancel's clean-up took its place out",
                () -> !redis.sortedSetMembers(queueKey(name)).contains(othersPlace.get(0)));
        assertTrue(held.release());
        Eventually.until(
                "every local waiter had its turn without the clock moving; handoff replies " + gate.handoffReplies,
                () -> local.stream().allMatch(CompletableFuture::isDone));
        assertFalse(
                gate.handoffReplies.stream().anyMatch(YieldToRedisQueueTest::yielded),
                "no handoff yielded; handoff replies " + gate.handoffReplies);
        assertTrue(violations.isEmpty(), violations.toString());
        Eventually.until("nothing left", () -> !redis.exists(lockKey(name)));
        assertFalse(local.stream().anyMatch(CompletableFuture::isCompletedExceptionally));
    }

    private final class LockClientPair {
        final io.leasehold.lock.LockClient local = client(Duration.ofSeconds(5));
        final io.leasehold.lock.LockClient other = other();
    }
}
