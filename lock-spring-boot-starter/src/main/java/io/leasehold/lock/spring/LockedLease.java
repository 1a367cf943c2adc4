package io.leasehold.lock.spring;

import io.leasehold.lock.Lease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The lease of the {@link Locked} method running on the current thread: the innermost one when
 * {@code @Locked} methods call each other. In a Kotlin {@code suspend} function it is the lease of the
 * innermost {@code @Locked} suspend function the coroutine runs in, on whatever thread the coroutine
 * resumes (and in coroutines it launches, which inherit its context).
 * <pre>{@code
 * @Locked(name = "stock", key = "#sku")
 * public void restock(String sku, int count) {
 *     inventory.write(sku, count, LockedLease.current().fencingToken());
 * }
 * }</pre>
 * The lease belongs to the thread the method runs on: code that the method hands to another thread must
 * be given the lease (or its token) explicitly.
 */
public final class LockedLease {

    private static final ThreadLocal<Deque<Lease>> RUNNING = ThreadLocal.withInitial(ArrayDeque::new);

    private LockedLease() {}

    /**
     * The lease of the innermost {@link Locked} method running on this thread.
     *
     * @throws IllegalStateException if no {@code @Locked} method runs on this thread
     */
    public static Lease current() {
        return find().orElseThrow(() -> new IllegalStateException("no @Locked method runs on this thread ("
                + Thread.currentThread().getName() + ")"));
    }

    /** The lease of the innermost {@link Locked} method running on this thread, if any. */
    public static Optional<Lease> find() {
        return Optional.ofNullable(RUNNING.get().peek());
    }

    /** Runs {@code body} as the method of {@code lease}: {@link #current()} is that lease while it runs. */
    static <T> T runningUnder(Lease lease, Callable<T> body) throws Exception {
        enter(lease);
        try {
            return body.call();
        } finally {
            leave();
        }
    }

    /**
     * Makes {@code lease} this thread's current one until the matching {@link #leave()}: around a method's
     * run, and each time a coroutine of a suspend function resumes on this thread.
     */
    static void enter(Lease lease) {
        RUNNING.get().push(lease);
    }

    /** Ends the latest {@link #enter(Lease)} on this thread. */
    static void leave() {
        Deque<Lease> running = RUNNING.get();
        running.pop();
        if (running.isEmpty()) {
            RUNNING.remove();
        }
    }
}
