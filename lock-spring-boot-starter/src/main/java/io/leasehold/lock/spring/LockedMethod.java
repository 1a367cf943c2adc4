package io.leasehold.lock.spring;

import io.leasehold.lock.LockOptions;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.StringValueResolver;

/**
 * One {@link Locked} method's annotation, read once (placeholders resolved, durations parsed, the key's
 * expression parsed, the busy result chosen) and checked: an attribute that cannot be read is refused with
 * a message that names the method, the attribute and the value. Immutable and threadsafe.
 */
final class LockedMethod {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    /** What a key's expression sees as {@code #root}. */
    record Root(Method method, Object target, Object[] args) {}

    private final Method method;
    private final String name;
    private final @Nullable Expression key;
    private final @Nullable Duration wait;
    private final @Nullable Duration leaseTime;
    private final @Nullable Duration minHoldTime;
    final boolean fair;
    final Locked.OnBusy onBusy;
    /** Whether the method is a Kotlin {@code suspend} function (locked by {@link SuspendingLockedCall}). */
    final boolean suspending;
    /** What a call gives its caller: the return type, or the result type of a suspend function. */
    private final Class<?> resultType;

    LockedMethod(Method method, Locked locked, StringValueResolver placeholders) {
        this.method = method;
        this.name = resolved(placeholders, "name", locked.name());
        if (name.isBlank()) {
            throw refused("name", locked.name(), "must not be blank");
        }
        this.key = locked.key().isEmpty() ? null : parse(locked.key());
        this.wait = duration(placeholders, "waitTime", locked.waitTime());
        this.leaseTime = duration(placeholders, "leaseTime", locked.leaseTime());
        this.minHoldTime = duration(placeholders, "minHoldTime", locked.minHoldTime());
        this.fair = locked.fair();
        this.onBusy = locked.onBusy();
        this.suspending = KotlinDetector.isSuspendingFunction(method);
        this.resultType = AsynchronousResults.resultType(method);
        String notCovered = AsynchronousResults.whyNotCovered(method);
        if (notCovered != null) {
            throw new IllegalArgumentException("@Locked on " + describe() + " " + notCovered);
        }
        if (onBusy == Locked.OnBusy.SKIP
                && method.getReturnType().isPrimitive()
                && method.getReturnType() != void.class) {
            throw refused(
                    "onBusy",
                    "SKIP",
                    "is not for a method that returns " + method.getReturnType()
                            + ": a skipped call would have no value to return");
        }
    }

    /** The lock's name for a call with {@code args} on {@code target}. */
    String lockName(Object target, Object[] args) {
        if (key == null) {
            return name;
        }
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(new Root(method, target, args), method, args, PARAMETER_NAMES);
        Object value;
        try {
            value = key.getValue(context);
        } catch (ExpressionException failed) {
            throw new IllegalArgumentException(
                    "@Locked(key = \"" + key.getExpressionString() + "\") on " + describe()
                            + " could not be evaluated: " + failed.getMessage() + namesHint(),
                    failed);
        }
        if (value == null) {
            throw new IllegalArgumentException("@Locked(key = \"" + key.getExpressionString() + "\") on " + describe()
                    + " must not be null, but was null for the lock '" + name + "'");
        }
        return name + ":" + render(value);
    }

    /** A key's value as text: an array by its elements (its own toString is its identity), anything else by toString. */
    private static String render(Object value) {
        if (value.getClass().isArray()) {
            String wrapped = java.util.Arrays.deepToString(new Object[] {value});
            return wrapped.substring(1, wrapped.length() - 1);
        }
        return value.toString();
    }

    /**
     * Why a key naming an argument ({@code #order}) may have found nothing: the argument names are not in
     * the class file (compiled without javac's {@code -parameters}); empty when they are.
     */
    private String namesHint() {
        return PARAMETER_NAMES.getParameterNames(method) != null
                ? ""
                : " (the argument names of " + describe() + " are not in its class file: compile with javac's"
                        + " -parameters, as spring-boot-starter-parent does, or name the arguments #p0, #p1, ...)";
    }

    /** The wait: the annotation's, or the options' default wait. */
    Duration waitOr(LockOptions options) {
        return wait != null ? wait : options.defaultWait();
    }

    /** The options for {@code lockName}: {@code defaults} with the annotation's lease and min-hold times, if any. */
    LockOptions options(LockOptions defaults, String lockName) {
        if (leaseTime == null && minHoldTime == null) {
            return defaults;
        }
        try {
            LockOptions.Builder options = defaults.toBuilder().forLock(lockName);
            if (leaseTime != null) {
                options.leaseTime(leaseTime);
            }
            if (minHoldTime != null) {
                options.minHoldTime(minHoldTime);
            }
            return options.build();
        } catch (IllegalArgumentException refused) {
            String attributes =
                    leaseTime == null ? "minHoldTime" : minHoldTime == null ? "leaseTime" : "leaseTime, minHoldTime";
            throw new IllegalArgumentException(
                    "@Locked(" + attributes + ") on " + describe() + ": " + refused.getMessage(), refused);
        }
    }

    /** What a call skipped because the lock was busy returns. */
    @Nullable
    Object skipped() {
        return resultType == Optional.class ? Optional.empty() : null;
    }

    private Expression parse(String expression) {
        try {
            return PARSER.parseExpression(expression);
        } catch (ExpressionException failed) {
            throw refused("key", expression, "is not a SpEL expression: " + failed.getMessage());
        }
    }

    private String resolved(StringValueResolver placeholders, String attribute, String value) {
        try {
            String resolved = placeholders.resolveStringValue(value);
            return resolved == null ? "" : resolved;
        } catch (IllegalArgumentException unresolvable) {
            throw refused(attribute, value, "could not be resolved: " + unresolvable.getMessage());
        }
    }

    private @Nullable Duration duration(StringValueResolver placeholders, String attribute, String value) {
        String resolved = resolved(placeholders, attribute, value).trim();
        if (resolved.isEmpty()) {
            return null;
        }
        try {
            return DurationStyle.detectAndParse(resolved);
        } catch (IllegalArgumentException unreadable) {
            throw refused(attribute, resolved, "must be a duration such as 500ms, 5s or PT5S");
        }
    }

    private IllegalArgumentException refused(String attribute, String value, String rule) {
        return new IllegalArgumentException(
                "@Locked(" + attribute + " = \"" + value + "\") on " + describe() + " " + rule);
    }

    private String describe() {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
    }
}
