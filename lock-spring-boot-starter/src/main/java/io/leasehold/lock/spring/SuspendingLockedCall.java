package io.leasehold.lock.spring;

import io.leasehold.lock.DistributedLock;
import java.time.Duration;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * Runs a {@link Locked} Kotlin {@code suspend} function under its lock for the whole of its work, its
 * suspensions included. Implemented in Kotlin ({@code KotlinSuspendingLockedCall}) and loaded by name at
 * the first call of such a function, so that an application without Kotlin never loads a Kotlin class.
 */
interface SuspendingLockedCall {

    /** The class that implements this interface, in Kotlin. */
    String IMPLEMENTATION = "io.leasehold.lock.spring.KotlinSuspendingLockedCall";

    /**
     * Calls the suspend function of {@code invocation} (whose last argument is the caller's continuation)
     * under {@code lock}, and returns what its proxy must return: its result or {@code COROUTINE_SUSPENDED}
     * where Spring calls suspend functions directly, a {@code Mono} where Spring calls them through Reactor
     * (kotlinx-coroutines-reactor on the class path).
     *
     * @param skipWhenBusy whether a lock busy for the whole wait skips the function ({@link Locked.OnBusy#SKIP})
     * @param skipped      what a skipped call returns
     */
    @Nullable
    Object call(
            MethodInvocation invocation,
            DistributedLock lock,
            Duration wait,
            boolean skipWhenBusy,
            @Nullable Object skipped)
            throws Throwable;

    /**
     * The implementation, loaded by name.
     *
     * @throws IllegalStateException if the class path lacks what it needs: kotlinx-coroutines-core (a Kotlin
     *     suspend function already brings kotlin-stdlib), or the starter's Kotlin classes
     */
    static SuspendingLockedCall load() {
        ClassLoader loader = SuspendingLockedCall.class.getClassLoader();
        if (!ClassUtils.isPresent("kotlinx.coroutines.Job", loader)) {
            throw new IllegalStateException("@Locked on a Kotlin suspend function needs kotlinx-coroutines-core on"
                    + " the class path (org.jetbrains.kotlinx:kotlinx-coroutines-core), as Kotlin's withLock does");
        }
        try {
            return (SuspendingLockedCall) Class.forName(IMPLEMENTATION, true, loader)
                    .getDeclaredConstructor()
                    .newInstance();
        } catch (ReflectiveOperationException | LinkageError missing) {
            throw new IllegalStateException(
                    "@Locked on a Kotlin suspend function could not load " + IMPLEMENTATION + ": " + missing, missing);
        }
    }
}
