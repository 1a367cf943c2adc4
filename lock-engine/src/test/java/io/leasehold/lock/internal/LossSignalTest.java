package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.LeaseLoss;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The loss signal: one shared read-only future, removable hooks and watchers, told in order. */
class LossSignalTest {

    private static final LeaseLoss LOSS = new LeaseLoss("orders:1", 42, LeaseLoss.Reason.STOLEN, Instant.now(), null);

    @Test
    void shouldKeepNothingAttachedAfterManyLostCallsAndWatchers() throws Exception {
        LossSignal signal = new LossSignal();
        CompletableFuture<LeaseLoss> first = signal.future();

        for (int i = 0; i < 200_000; i++) {
            assertSame(first, signal.future());
            signal.watch(loss -> {}).close();
            signal.onLossNow(() -> {}).close();
        }

        assertEquals(0, first.getNumberOfDependents(), "dependents left on lost()");
        assertEquals(0, signal.attachedCount(), "hooks and watchers left");
    }

    @Test
    void shouldRefuseCompletionFromOutside() {
        LossSignal signal = new LossSignal();

        assertFalse(signal.future().complete(LOSS));
        assertFalse(signal.future().completeExceptionally(new IllegalStateException("fake")));
        assertFalse(signal.future().cancel(true));
        assertThrows(UnsupportedOperationException.class, () -> signal.future().obtrudeValue(LOSS));
        assertThrows(UnsupportedOperationException.class, () -> signal.future().orTimeout(1, TimeUnit.SECONDS));
        assertFalse(signal.future().isDone());
    }

    @Test
    void shouldRunHooksAtDeclarationAndWatchersThenTheFutureWhenTold() {
        LossSignal signal = new LossSignal();
        List<String> order = new ArrayList<>();
        signal.onLossNow(() -> order.add("hook"));
        signal.watch(loss -> order.add("watcher"));
        signal.future().thenRun(() -> order.add("future"));

        signal.declare(LOSS);
        assertEquals(List.of("hook"), order);
        signal.tell(LOSS);

        assertEquals(List.of("hook", "watcher", "future"), order);
        assertTrue(signal.future().isDone());
    }

    @Test
    void shouldRunAWatcherAddedAfterTheLossAtOnce() {
        LossSignal signal = new LossSignal();
        signal.declare(LOSS);
        List<LeaseLoss> seen = new ArrayList<>();

        signal.watch(seen::add);

        assertEquals(List.of(LOSS), seen);
    }
}
