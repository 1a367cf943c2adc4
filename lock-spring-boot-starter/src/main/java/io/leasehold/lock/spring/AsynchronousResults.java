package io.leasehold.lock.spring;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;

/**
 * Which {@link Locked} methods end before their work does: those that return a {@link CompletionStage},
 * a {@link Future}, a reactive {@code Publisher} or a Kotlin {@code Flow} (a {@code suspend} function
 * included: its result is what it returns when it resumes for the last time). Holding a lock for such a
 * method's call would release it while the work still runs, so they are refused, unless Spring's
 * {@code @Async} runs the method on an executor: its interceptor runs outside this one, so the lock is then
 * held on the executor's thread around the work. A Kotlin {@code suspend} function with any other result is
 * covered: its lock is held until it completes, across its suspensions ({@link SuspendingLockedCall}).
 */
final class AsynchronousResults {

    private static final String ASYNC = "org.springframework.scheduling.annotation.Async";
    private static final String FLOW = "kotlinx.coroutines.flow.Flow";

    private AsynchronousResults() {}

    /** Why the lock could not cover {@code method}'s work, or null when it can. */
    static @Nullable String whyNotCovered(Method method) {
        if (runsOnAnExecutor(method)) {
            return null;
        }
        Class<?> type = resultType(method);
        if (CompletionStage.class.isAssignableFrom(type)
                || Future.class.isAssignableFrom(type)
                || isPublisher(type)
                || implementsNamed(type, FLOW)) {
            return "returns " + type.getName() + ": the lock would be released when the method returns, before the"
                    + " work it started completes (lock inside that work instead: DistributedLock.callLockedAsync)";
        }
        return null;
    }

    /**
     * What a call of {@code method} gives its caller: its return type, or for a Kotlin {@code suspend}
     * function the type it completes with (read from its continuation parameter, {@code Continuation<? super
     * T>}; {@code Object} where that cannot be read).
     */
    static Class<?> resultType(Method method) {
        if (!KotlinDetector.isSuspendingFunction(method)) {
            return method.getReturnType();
        }
        Type[] parameters = method.getGenericParameterTypes();
        Type continuation = parameters[parameters.length - 1];
        if (continuation instanceof ParameterizedType parameterized
                && parameterized.getActualTypeArguments().length == 1) {
            Type result = parameterized.getActualTypeArguments()[0];
            if (result instanceof WildcardType wildcard && wildcard.getLowerBounds().length == 1) {
                result = wildcard.getLowerBounds()[0];
            }
            if (result instanceof ParameterizedType generic) {
                result = generic.getRawType();
            }
            if (result instanceof Class<?> type) {
                return type;
            }
        }
        return Object.class;
    }

    private static boolean runsOnAnExecutor(Method method) {
        return MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(ASYNC)
                || MergedAnnotations.from(method.getDeclaringClass(), SearchStrategy.TYPE_HIERARCHY)
                        .isPresent(ASYNC);
    }

    /** Whether {@code type} is a Reactive Streams or {@code Flow} publisher (by name: neither need be present). */
    private static boolean isPublisher(Class<?> type) {
        return implementsNamed(type, "org.reactivestreams.Publisher")
                || implementsNamed(type, "java.util.concurrent.Flow$Publisher");
    }

    /** Whether {@code type} is or implements the interface named {@code name} (by name: it need not be present). */
    private static boolean implementsNamed(Class<?> type, String name) {
        for (Class<?> each = type; each != null; each = each.getSuperclass()) {
            if (implementsInterface(each, name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean implementsInterface(Class<?> type, String name) {
        if (type.getName().equals(name)) {
            return true;
        }
        for (Class<?> each : type.getInterfaces()) {
            if (implementsInterface(each, name)) {
                return true;
            }
        }
        return false;
    }
}
