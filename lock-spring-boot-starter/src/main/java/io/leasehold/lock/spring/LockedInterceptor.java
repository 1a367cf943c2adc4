package io.leasehold.lock.spring;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringValueResolver;

/**
 * Runs each {@link Locked} method under its lock (see there). Each method's annotation is read and checked
 * once, at its first call. Threadsafe.
 */
public final class LockedInterceptor implements MethodInterceptor {

    /**
     * The order of its advisor: before (outside) Spring's transaction interceptor and cache interceptor,
     * which run at {@link Ordered#LOWEST_PRECEDENCE} by default, so that the lock is held for the whole
     * transaction, its commit included.
     */
    public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 1_000;

    private final Supplier<LockClient> client;
    private final StringValueResolver placeholders;
    private final Map<Method, LockedMethod> methods = new ConcurrentHashMap<>();
    /** Locks Kotlin suspend functions; loaded at the first call of one (Java applications never load it). */
    private volatile @Nullable SuspendingLockedCall suspending;

    /**
     * @param client       the lock client, looked up at the first call (the interceptor is made before
     *                     the application's beans are)
     * @param placeholders resolves {@code ${...}} in the annotations' attributes
     */
    public LockedInterceptor(Supplier<LockClient> client, StringValueResolver placeholders) {
        this.client = client;
        this.placeholders = placeholders;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = AopUtils.getMostSpecificMethod(
                invocation.getMethod(),
                target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target));
        LockedMethod locked = methods.computeIfAbsent(method, this::read);
        String name = locked.lockName(target, invocation.getArguments());
        LockClient locks = client.get();
        LockOptions options = locked.options(locks.defaultOptions(), name);
        DistributedLock lock = locked.fair ? locks.fairLock(name, options) : locks.lock(name, options);
        if (locked.suspending) {
            return suspending()
                    .call(
                            invocation,
                            lock,
                            locked.waitOr(options),
                            locked.onBusy == Locked.OnBusy.SKIP,
                            locked.skipped());
        }
        AtomicBoolean started = new AtomicBoolean();
        try {
            return lock.callWithLease(locked.waitOr(options), lease -> {
                started.set(true);
                return LockedLease.runningUnder(lease, () -> proceed(invocation));
            });
        } catch (LockTimeoutException busy) {
            if (!started.get() && locked.onBusy == Locked.OnBusy.SKIP) {
                return locked.skipped();
            }
            throw busy;
        } catch (ThrowableCarrier carried) {
            throw carried.getCause();
        }
    }

    private SuspendingLockedCall suspending() {
        SuspendingLockedCall loaded = suspending;
        if (loaded == null) {
            loaded = SuspendingLockedCall.load(); // two first calls at once may both load it: no harm
            suspending = loaded;
        }
        return loaded;
    }

    private LockedMethod read(Method method) {
        Locked annotation = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
        if (annotation == null) {
            throw new IllegalStateException("no @Locked on " + method);
        }
        return new LockedMethod(method, annotation, placeholders);
    }

    /** The method's own result or failure: an {@code Exception} as is, any other {@code Throwable} carried. */
    private static @Nullable Object proceed(MethodInvocation invocation) throws Exception {
        try {
            return invocation.proceed();
        } catch (Exception | Error thrown) {
            throw thrown;
        } catch (Throwable other) {
            throw new ThrowableCarrier(other);
        }
    }

    /** Carries a {@code Throwable} that is neither an {@code Exception} nor an {@code Error} through the lock's call. */
    private static final class ThrowableCarrier extends Exception {
        private static final long serialVersionUID = 1L;

        ThrowableCarrier(Throwable carried) {
            super(carried);
        }
    }
}
