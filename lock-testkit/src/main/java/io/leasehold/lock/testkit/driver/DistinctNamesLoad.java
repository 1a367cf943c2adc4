package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockClientDiagnostics;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * Many lock names, each used briefly: what a leak test runs before it checks that the engine kept
 * nothing per name ({@link LockClient#diagnostics()}). Shared by the driver load tests and the engine's
 * in-memory one.
 */
public final class DistinctNamesLoad {

    /** Generous: a loaded machine stalls for seconds (see {@link LoadDriverTests#LOADED_WAIT}). */
    private static final Duration WAIT = LoadDriverTests.LOADED_WAIT;

    private static final long TIMEOUT_SECONDS = 300;

    private DistinctNamesLoad() {}

    /** Acquires and releases each of {@code count} names once, {@code inFlight} pairs at a time; fails if a release finds its lock gone. */
    public static void acquireAndReleaseEach(LockClient client, int count, int inFlight, IntFunction<String> names)
            throws Exception {
        AtomicInteger notReleased = new AtomicInteger();
        BoundedInFlight.run(
                count,
                inFlight,
                TIMEOUT_SECONDS,
                i -> client.lock(names.apply(i))
                        .acquireAsync(WAIT)
                        .thenCompose(Lease::releaseAsync)
                        .thenAccept(released -> {
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
    public static void handOverEach(
            LockClient holder, LockClient waiter, int count, int inFlight, IntFunction<String> names) throws Exception {
        AtomicReferenceArray<Lease> held = new AtomicReferenceArray<>(count);
        BoundedInFlight.run(
                count,
                inFlight,
                TIMEOUT_SECONDS,
                i -> holder.lock(names.apply(i)).acquireAsync(WAIT).thenAccept(lease -> held.set(i, lease)));
        AtomicInteger notReleased = new AtomicInteger();
        CompletableFuture<?>[] waited = new CompletableFuture<?>[count];
        for (int i = 0; i < count; i++) {
            waited[i] = waiter.lock(names.apply(i))
                    .acquireAsync(WAIT)
                    .thenCompose(Lease::releaseAsync)
                    .thenAccept(released -> {
                        if (!released) {
                            notReleased.incrementAndGet();
                        }
                    });
        }
        awaitDiagnostics(
                "every name waited for, its channel subscribed",
                diagnostics -> diagnostics.acquisitions() == count && diagnostics.subscribedNames() == count,
                waiter);
        BoundedInFlight.run(
                count,
                inFlight,
                TIMEOUT_SECONDS,
                i -> held.get(i).releaseAsync().thenAccept(released -> {
                    if (!released) {
                        notReleased.incrementAndGet();
                    }
                }));
        CompletableFuture.allOf(waited).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertEquals(0, notReleased.get(), "releases (holder's and waiter's) that found their lock gone");
    }

    /**
     * Waits until every one of {@code clients} is {@linkplain LockClientDiagnostics#isQuiescent
     * quiescent} (a lingering subscription drops after a second); fails with their diagnostics at the
     * deadline.
     */
    public static void awaitQuiescent(LockClient... clients) {
        awaitDiagnostics("engines quiescent", LockClientDiagnostics::isQuiescent, clients);
    }

    /** Waits until the diagnostics of every one of {@code clients} meet {@code condition}; fails with their diagnostics at the deadline. */
    static void awaitDiagnostics(String what, Predicate<LockClientDiagnostics> condition, LockClient... clients) {
        try {
            Eventually.until(what, () -> Arrays.stream(clients).allMatch(c -> condition.test(c.diagnostics())));
        } catch (AssertionError notYet) {
            throw new AssertionError(
                    notYet.getMessage() + "; diagnostics now: "
                            + Arrays.stream(clients)
                                    .map(LockClient::diagnostics)
                                    .toList(),
                    notYet);
        }
    }
}
