package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.internal.EngineFootprint;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;

/**
 * Many lock names, each used briefly: what a leak test runs before it checks that the engine kept
 * nothing per name ({@link EngineFootprint}). Shared by the driver load tests and the in-memory one.
 */
final class DistinctNamesLoad {

    /** Generous: a loaded machine stalls for seconds (see {@link LoadDriverTests#LOADED_WAIT}). */
    private static final Duration WAIT = LoadDriverTests.LOADED_WAIT;
    private static final long TIMEOUT_SECONDS = 300;

    private DistinctNamesLoad() {
    }

    /** Acquires and releases each of {@code count} names once, {@code inFlight} pairs at a time; fails if a release finds its lock gone. */
    static void acquireAndReleaseEach(LockClient client, int count, int inFlight, IntFunction<String> names) throws Exception {
        AtomicInteger notReleased = new AtomicInteger();
        BoundedInFlight.run(count, inFlight, TIMEOUT_SECONDS, i -> client.lock(names.apply(i)).acquireAsync(WAIT)
                .thenCompose(Lease::releaseAsync).thenAccept(released -> {
                    if (!released) {
                        notReleased.incrementAndGet();
                    }
                }));
        assertEquals(0, notReleased.get(), "releases that found their lock gone");
    }

    /**
     * Has {@code holder} acquire each of {@code count} names, {@code waiter} wait for every one of them
     * (each a queue and a release-channel subscription of its own), then {@code holder} release them
     * all, and {@code waiter} acquire and release each in turn.
     */
    static void handOverEach(LockClient holder, LockClient waiter, int count, int inFlight, IntFunction<String> names) throws Exception {
        AtomicReferenceArray<Lease> held = new AtomicReferenceArray<>(count);
        BoundedInFlight.run(count, inFlight, TIMEOUT_SECONDS, i -> holder.lock(names.apply(i)).acquireAsync(WAIT)
                .thenAccept(lease -> held.set(i, lease)));
        CompletableFuture<?>[] waited = new CompletableFuture<?>[count];
        for (int i = 0; i < count; i++) {
            waited[i] = waiter.lock(names.apply(i)).acquireAsync(WAIT).thenCompose(Lease::releaseAsync);
        }
        Eventually.until("every name waited for and subscribed: " + EngineFootprint.of(waiter), () -> {
            EngineFootprint footprint = EngineFootprint.of(waiter);
            return footprint.acquisitions() == count && footprint.subscribedNames() == count;
        });
        BoundedInFlight.run(count, inFlight, TIMEOUT_SECONDS, i -> held.get(i).releaseAsync());
        CompletableFuture.allOf(waited).get(TIMEOUT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
    }
}
