package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * How one lease tells of its loss, in the order G6 demands, all before the engine frees the lock for
 * others:
 * <ol>
 *   <li><b>at once</b>, on the thread that declared the loss: the engine's own hooks, which only
 *       interrupt a {@code callLocked} thread ({@link #onLossNow});</li>
 *   <li>then, on the callback executor: the watchers ({@link #watch}: Kotlin {@code withLock}
 *       cancelling its block, {@code callLockedAsync} failing its result), then {@link #future()}'s
 *       dependents.</li>
 * </ol>
 * Hooks and watchers are removable, so that a lease held for long by many short re-entrant calls
 * keeps no trace of them; {@link #future()} is one shared, read-only future, so calling
 * {@code lost()} often costs nothing.
 *
 * <p>This class is threadsafe.
 */
final class LossSignal {

    private final LossFuture future = new LossFuture();
    private final Set<Runnable> hooks = ConcurrentHashMap.newKeySet();
    private final Set<Watcher> watchers = ConcurrentHashMap.newKeySet();
    private volatile LeaseLoss loss;

    /** The lease's {@code lost()}: completes with the loss, never otherwise; outsiders cannot complete it. */
    CompletableFuture<LeaseLoss> future() {
        return future;
    }

    /**
     * Runs {@code hook} on the declaring thread the moment the loss is declared (at once if it
     * already was). It must be short and never block. The handle removes it.
     */
    AutoCloseable onLossNow(Runnable hook) {
        hooks.add(hook);
        if (loss != null && hooks.remove(hook)) {
            hook.run();
        }
        return () -> hooks.remove(hook);
    }

    /**
     * Calls {@code watcher} on the callback executor once the loss is declared (at once, on the
     * caller's thread, if it already was). The handle removes it.
     */
    AutoCloseable watch(Consumer<LeaseLoss> watcher) {
        Watcher entry = new Watcher(watcher);
        watchers.add(entry);
        LeaseLoss known = loss;
        if (known != null && watchers.remove(entry)) {
            watcher.accept(known);
        }
        return () -> watchers.remove(entry);
    }

    /** Hooks and watchers attached now (for tests and diagnostics: short re-entrant calls must leave none). */
    int attachedCount() {
        return hooks.size() + watchers.size();
    }

    /** Step 1: records the loss and runs the immediate hooks. Called once, by the declaring thread. */
    void declare(LeaseLoss declared) {
        loss = declared;
        for (Runnable hook : hooks) {
            if (hooks.remove(hook)) {
                hook.run();
            }
        }
    }

    /** Step 2, on the callback executor: the watchers, then {@link #future()}. Returns when all have run. */
    void tell(LeaseLoss declared) {
        for (Watcher watcher : watchers) {
            if (watchers.remove(watcher)) {
                try {
                    watcher.consumer.accept(declared);
                } catch (RuntimeException e) {
                    // one watcher's failure must not keep the others, or the future, from hearing of the loss
                }
            }
        }
        future.signal(declared);
    }

    /** A watcher entry with identity semantics (the same lambda may be added twice). */
    private static final class Watcher {
        final Consumer<LeaseLoss> consumer;

        Watcher(Consumer<LeaseLoss> consumer) {
            this.consumer = consumer;
        }
    }

    /**
     * The shared {@code lost()} future. {@code complete}, {@code completeExceptionally} and
     * {@code cancel} from outside do nothing (they return false) and the other mutators throw, so that
     * no caller can fake or hide a loss for everyone else; its dependents are ordinary futures (use
     * {@code lost().copy().orTimeout(...)} for a timed wait).
     */
    static final class LossFuture extends CompletableFuture<LeaseLoss> {

        void signal(LeaseLoss loss) {
            super.complete(loss);
        }

        @Override
        public boolean complete(LeaseLoss value) {
            return false;
        }

        @Override
        public boolean completeExceptionally(Throwable ex) {
            return false;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return false;
        }

        @Override
        public void obtrudeValue(LeaseLoss value) {
            throw readOnly();
        }

        @Override
        public void obtrudeException(Throwable ex) {
            throw readOnly();
        }

        private static UnsupportedOperationException readOnly() {
            return new UnsupportedOperationException(
                    "a lease's lost() future is shared and completed by the engine only; "
                            + "use lost().copy() for a future of your own (e.g. lost().copy().orTimeout(...))");
        }

        @Override
        public CompletableFuture<LeaseLoss> completeAsync(Supplier<? extends LeaseLoss> supplier, Executor executor) {
            throw readOnly();
        }

        @Override
        public CompletableFuture<LeaseLoss> completeAsync(Supplier<? extends LeaseLoss> supplier) {
            throw readOnly();
        }

        @Override
        public CompletableFuture<LeaseLoss> completeOnTimeout(LeaseLoss value, long timeout, TimeUnit unit) {
            throw readOnly();
        }

        @Override
        public CompletableFuture<LeaseLoss> orTimeout(long timeout, TimeUnit unit) {
            throw readOnly();
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new CompletableFuture<>();
        }

        @Override
        public String toString() {
            return "lost()" + (isDone() ? "=" + join() : " (not lost)");
        }
    }
}
