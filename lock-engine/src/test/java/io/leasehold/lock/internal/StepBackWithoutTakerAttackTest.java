package io.leasehold.lock.internal;

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
 * A reviewer's attack on the step-back after a yield (state machine of commit 9878700): the other
 * client's waiter gives up just before the yield, so only its lingering subscription made the 8th
 * handoff yield and nobody takes the lock. The yielding client's waiters must go on after the
 * step-back's bound (50 ms on the engine's clock), not sit out their 60 s wait, and the lock must not
 * be left held.
 */
class StepBackWithoutTakerAttackTest extends HandoffAttackSupport {

    private static final LockOptions NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();

    @RepeatedTest(3)
    void shouldGoOnAfterTheBoundWhenTheOtherClientsWaiterGaveUpBeforeTheYield() throws Exception {
        String name = "yield:nobody-takes";
        LockClientPair pair = new LockClientPair();
        Lease held = pair.local.lock(name, NO_RENEW).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> othersWaiter = pair.other.lock(name, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        Eventually.until("the other client's waiter subscribed", () -> redis.subscriberCount(channel(name)) == 1);
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
        othersWaiter.cancel(false); // its subscription lingers (1 s on the engine's clock)
        Eventually.until("the cancel's clean-up ran", () -> redis.subscriberCount(channel(name)) == 2);
        assertTrue(held.release());
        advanceUntil(
                "every local waiter had its turn within a few step-back bounds; handoff replies " + gate.handoffReplies,
                Duration.ofMillis(1),
                Duration.ofMillis(400),
                () -> local.stream().allMatch(CompletableFuture::isDone));
        assertTrue(
                gate.handoffReplies.stream().anyMatch(r -> r.startsWith("[0, ") && r.contains(", 0, 1]")),
                "a handoff yielded (the premise); handoff replies " + gate.handoffReplies);
        assertTrue(violations.isEmpty(), violations.toString());
        Eventually.until("nothing left", () -> !redis.exists(lockKey(name)));
        assertFalse(local.stream().anyMatch(CompletableFuture::isCompletedExceptionally));
    }

    private final class LockClientPair {
        final io.leasehold.lock.LockClient local = client(Duration.ofSeconds(5));
        final io.leasehold.lock.LockClient other = other();
    }
}
