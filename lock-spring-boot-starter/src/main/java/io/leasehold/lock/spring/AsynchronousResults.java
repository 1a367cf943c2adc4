package io.leasehold.lock.spring;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;

/**
 * Which {@link Locked} methods end before their work does: those that return a {@link CompletionStage},
 * a {@link Future} or a reactive {@code Publisher}, and Kotlin {@code suspend} functions (which return
 * as soon as they suspend). Holding a lock for such a method's call would release it while the work still
 * runs, so they are refused, unless Spring's {@code @Async} runs the method on an executor: its
 * interceptor runs outside this one, so the lock is then held on the executor's thread around the work.
 */
final class AsynchronousResults {

    private static final String ASYNC = "org.springframework.scheduling.annotation.Async";

    private AsynchronousResults() {}

    /** Why the lock could not cover {@code method}'s work, or null when it can. */
    static @Nullable String whyNotCovered(Method method) {
        if (runsOnAnExecutor(method)) {
            return null;
        }
        if (KotlinDetector.isSuspendingFunction(method)) {
            return "is a Kotlin suspend function, which returns when it suspends: the lock would be released"
                    + " before its work completes (not supported yet; use withLock inside it)";
        }
        Class<?> type = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type) || isPublisher(type)) {
            return "returns " + type.getName() + ": the lock would be released when the method returns, before the"
                    + " work it started completes (lock inside that work instead: DistributedLock.callLockedAsync)";
        }
        return null;
    }

    private static boolean runsOnAnExecutor(Method method) {
        return MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(ASYNC)
                || MergedAnnotations.from(method.getDeclaringClass(), SearchStrategy.TYPE_HIERARCHY)
                        .isPresent(ASYNC);
    }

    /** Whether {@code type} is a Reactive Streams or {@code Flow} publisher (by name: neither need be present). */
    private static boolean isPublisher(Class<?> type) {
        for (Class<?> each = type; each != null; each = each.getSuperclass()) {
            if (implementsPublisher(each)) {
                return true;
            }
        }
        return false;
    }

    private static boolean implementsPublisher(Class<?> type) {
        if (type.getName().equals("org.reactivestreams.Publisher")
                || type.getName().equals("java.util.concurrent.Flow$Publisher")) {
            return true;
        }
        for (Class<?> each : type.getInterfaces()) {
            if (implementsPublisher(each)) {
                return true;
            }
        }
        return false;
    }
}
