package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockException;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code close()} racing acquisitions whose lease is on its way to the caller (granted by Redis,
 * handed out on the callback executor): each acquisition still reports exactly one outcome, and the
 * only leases reported lost are those handed out before close() ended them ({@code CLIENT_CLOSED}). Close used to end an acquisition in the middle of its hand-out, after the
 * lease had been announced as acquired: listeners then heard "acquired" and "cancelled" for one
 * acquisition, and the close's clean-up deleted the lock under the announced lease, whose release
 * reported a false {@code STOLEN} loss. The race is a narrow window, so the test runs it many times.
 */
class CloseDuringHandOutTest {

    private static final int ROUNDS = 60;
    private static final int ACQUISITIONS = 16;

    @Test
    void shouldReportExactlyOneOutcomePerAcquisitionAndNoLossButByCloseWhenClosedDuringHandOuts() throws Exception {
        ExecutorService handOuts = Executors.newFixedThreadPool(4, TestThreads.daemon("close-race-callback"));
        try (InMemoryLockBackend redis = new InMemoryLockBackend()) {
            for (int round = 0; round < ROUNDS; round++) {
                Outcomes outcomes = new Outcomes();
                LockClient client = LockClient.builder(redis.newNode())
                        .callbackExecutor(handOuts)
                        .listener(outcomes)
                        .build();
                List<CompletableFuture<Lease>> acquisitions = new ArrayList<>();
                for (int i = 0; i < ACQUISITIONS; i++) {
                    acquisitions.add(client.lock("race:" + round + ":" + i).acquireAsync(Duration.ofSeconds(5)));
                }
                client.close();

                for (CompletableFuture<Lease> acquisition : acquisitions) {
                    acquisition
                            .handle((lease, error) -> null)
                            .get(10, TimeUnit.SECONDS); // each one ended, one way or the other
                }
                outcomes.awaitOne(ACQUISITIONS);
                for (int i = 0; i < ACQUISITIONS; i++) {
                    String name = "race:" + round + ":" + i;
                    assertEquals(List.of(outcomes.single(name)), outcomes.of(name), "one outcome for " + name);
                }
                for (LeaseLoss loss : outcomes.losses) {
                    assertEquals(LeaseLoss.Reason.CLIENT_CLOSED, loss.reason(), "the only loss is by close(): " + loss);
                    assertEquals(
                            List.of("acquired"),
                            outcomes.of(loss.lockName()),
                            "a lease lost by close() was handed out first: " + loss);
                }
            }
        } finally {
            handOuts.shutdownNow();
        }
    }

    /** Each acquisition's outcome events, by lock name, and every loss. */
    private static final class Outcomes implements LockEventListener {
        private final Map<String, List<String>> byName = new ConcurrentHashMap<>();
        final List<LeaseLoss> losses = new CopyOnWriteArrayList<>();

        @Override
        public void onAcquired(String lockName, long fencingToken, Duration waited) {
            add(lockName, "acquired");
        }

        @Override
        public void onAcquireFailed(String lockName, LockException failure, Duration waited) {
            add(lockName, "failed");
        }

        @Override
        public void onAcquireCancelled(String lockName, Duration waited) {
            add(lockName, "cancelled");
        }

        @Override
        public void onLeaseLost(LeaseLoss loss) {
            losses.add(loss);
        }

        private void add(String name, String outcome) {
            byName.computeIfAbsent(name, ignored -> new CopyOnWriteArrayList<>())
                    .add(outcome);
        }

        List<String> of(String name) {
            return byName.getOrDefault(name, List.of());
        }

        String single(String name) {
            List<String> seen = of(name);
            return seen.isEmpty() ? "(none)" : seen.get(0);
        }

        /** Close lets the event thread finish its queue, so by now every acquisition's outcome has been heard. */
        void awaitOne(int acquisitions) {
            assertTrue(byName.size() == acquisitions, "every acquisition reported an outcome: " + byName);
        }
    }
}
