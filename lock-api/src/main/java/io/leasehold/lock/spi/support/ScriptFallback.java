package io.leasehold.lock.spi.support;

import io.leasehold.lock.spi.LuaScript;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Runs a script by {@code EVALSHA} and, when Redis answers {@code NOSCRIPT} (its script cache was
 * emptied by a restart, a failover or {@code SCRIPT FLUSH}), once more by {@code EVAL}, which runs
 * the source and caches it again. The driver supplies the two calls; in a cluster both must route by
 * the script's first key, so that the retry reaches the node that lacked the script.
 *
 * <p>This class is threadsafe.
 */
public final class ScriptFallback {

    private final Predicate<Throwable> isNoScript;
    private final LongAdder fallbacks = new LongAdder();

    /**
     * A fallback that recognises {@code NOSCRIPT} by the driver's own test, e.g. Lettuce's
     * {@code RedisNoScriptException} or Jedis's {@code JedisNoScriptException}.
     */
    public ScriptFallback(Predicate<Throwable> isNoScript) {
        this.isNoScript = isNoScript;
    }

    /** A fallback that recognises {@code NOSCRIPT} by the error reply's text (see {@link #isNoScriptReply}). */
    public ScriptFallback() {
        this(ScriptFallback::isNoScriptReply);
    }

    /**
     * Runs {@code script} by {@code evalSha} (given the SHA-1) and, on {@code NOSCRIPT}, by
     * {@code evalSource} (given the source). The future has the reply, or the driver's failure
     * without {@code CompletableFuture}'s wrappers.
     */
    public CompletableFuture<Object> run(
            LuaScript script,
            Function<String, CompletableFuture<Object>> evalSha,
            Function<String, CompletableFuture<Object>> evalSource) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        call(evalSha, script.sha1()).whenComplete((reply, failure) -> {
            if (failure == null) {
                result.complete(reply);
            } else if (isNoScript.test(Failures.unwrap(failure))) {
                fallbacks.increment();
                call(evalSource, script.source()).whenComplete((retried, again) -> {
                    if (again == null) {
                        result.complete(retried);
                    } else {
                        result.completeExceptionally(Failures.unwrap(again));
                    }
                });
            } else {
                result.completeExceptionally(Failures.unwrap(failure));
            }
        });
        return result;
    }

    /** How many calls fell back from {@code EVALSHA} to {@code EVAL}. */
    public long fallbacks() {
        return fallbacks.sum();
    }

    /** True when {@code failure}'s message is Redis's {@code NOSCRIPT} error reply. */
    public static boolean isNoScriptReply(Throwable failure) {
        String message = failure.getMessage();
        return message != null
                && message.stripLeading().toUpperCase(Locale.ROOT).startsWith("NOSCRIPT");
    }

    private static CompletableFuture<Object> call(Function<String, CompletableFuture<Object>> eval, String argument) {
        try {
            return eval.apply(argument);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
