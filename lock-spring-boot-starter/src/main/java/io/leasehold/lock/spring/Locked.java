package io.leasehold.lock.spring;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.LeaseLostException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockTimeoutException;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding a Leasehold lock, taken through the application's
 * {@link LockClient} bean, and released when the method returns or throws, as
 * {@link DistributedLock#callWithLease} does (its rules apply in full):
 * <pre>{@code
 * @Locked(name = "orders", key = "#order.id", waitTime = "5s")
 * public void ship(Order order) { ... }          // holds the lock 'orders:<order.id>'
 * }</pre>
 *
 * <ul>
 *   <li><b>Lock name</b>: {@link #name()}, then, if {@link #key()} is set, {@code ':'} and the value of
 *       that SpEL expression over the method's arguments ({@code #order}, or {@code #p0}/{@code #a0} where
 *       the parameter names were not compiled in), and {@code #root.method}, {@code #root.target}. A key
 *       that evaluates to {@code null} fails the call with an {@code IllegalArgumentException}.</li>
 *   <li><b>The lease</b> of the running method, to pass its fencing token to what it writes:
 *       {@link LockedLease#current()}.</li>
 *   <li><b>Reentrant on the thread</b>: a {@code @Locked} method of the same lock called from within one
 *       runs under the outer lease.</li>
 *   <li><b>A lost lease</b> interrupts the thread running the method (before the lock is freed for
 *       others), and the call then throws {@link LeaseLostException}.</li>
 *   <li><b>Busy</b>: when another owner holds the lock for the whole {@link #waitTime()}, the call throws
 *       {@link LockTimeoutException}, or, with {@link OnBusy#SKIP}, returns without running the method.</li>
 *   <li><b>With {@code @Transactional}</b>: the lock is taken before the transaction begins and released
 *       after it committed or rolled back (the interceptor runs outside Spring's transaction interceptor
 *       at its default order), so that no other holder can read the data before it is committed.</li>
 * </ul>
 *
 * <p>Durations are written as Spring Boot reads them ({@code "500ms"}, {@code "5s"}, {@code "PT5S"}) and
 * may be {@code ${...}} placeholders. An attribute that cannot be read fails the first call of the method
 * with an {@code IllegalArgumentException} that names the method, the attribute and the value.
 *
 * <p>Applies to public methods of Spring beans called through their proxy (not from within the same
 * object), like {@code @Transactional}.
 *
 * <p><b>Kotlin {@code suspend} functions</b> are locked for the whole of their work, across their
 * suspensions and whichever threads they resume on, as Kotlin's {@code withLock} locks a block (its rules
 * apply in full): waiting suspends rather than blocks; cancelling the caller while it waits or while the
 * function runs releases the lock; a lost lease cancels the function (at its next suspension point) and the
 * call throws {@link LeaseLostException}; {@link LockedLease#current()} is the function's lease on every
 * thread it resumes on. <b>Reentrant by coroutine</b> instead of by thread: a {@code @Locked} suspend
 * function (or {@code withLock}) of the same lock called from within one, or from a coroutine it launched,
 * runs under the outer lease; a blocking {@code @Locked} method of the same lock called from within one
 * does not (it is another owner, and waits). {@link OnBusy#SKIP} returns {@code null}, so give such a
 * function a nullable result type. A suspend function that returns a {@code Flow} is refused, like other
 * results whose work outlives the call. Where the caller's coroutine has no dispatcher of its own, or one
 * that runs on any thread ({@code Dispatchers.Unconfined}, as Spring WebFlux calls controllers), the
 * function runs on {@code Dispatchers.Default}, never on Leasehold's threads.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {

    /** The lock's name, or its first part when {@link #key()} is set; may hold {@code ${...}} placeholders. */
    String name();

    /** A SpEL expression over the method's arguments whose value ends the lock's name; none by default. */
    String key() default "";

    /** How long to wait for the lock; the client's default wait ({@code leasehold.lease.default-wait}) if empty. */
    String waitTime() default "";

    /** The lease time; the client's default lease time if empty. Renewed as the client's options say. */
    String leaseTime() default "";

    /**
     * The shortest time the lock stays taken, counted from when it was taken ({@link
     * io.leasehold.lock.LockOptions#minHoldTime()}): a method that returns sooner leaves the lock taken in
     * Redis until then. None if empty. For a {@code @Scheduled} job that every node runs, with
     * {@code onBusy = SKIP} and a hold a little shorter than the schedule's period, a job that ends fast on
     * one node is not run again by a node whose clock is a little behind (ShedLock's
     * {@code lockAtLeastFor}); the hold needs no process after the method returned.
     */
    String minHoldTime() default "";

    /** Whether to wait in line ({@link LockClient#fairLock(String)}) rather than compete. */
    boolean fair() default false;

    /** What to do when the lock could not be had within the wait. */
    OnBusy onBusy() default OnBusy.THROW;

    /** What a {@link Locked} method does when its lock is held by another owner for the whole wait. */
    enum OnBusy {
        /** Throw {@link LockTimeoutException}. */
        THROW,
        /**
         * Return without running the method: {@code null}, or an empty {@code Optional} for a method that
         * returns one. Not for methods that return a primitive value (refused at their first call).
         */
        SKIP
    }
}
